/*
 * path.h: paths the commands write to.
 */
#ifndef ROBOT_PATH_H
#define ROBOT_PATH_H

#include <stdbool.h>
#include <sys/types.h>

/* Makes dir and the folders above it that are missing (mkdir -p);
 * false with errno when one cannot be made. */
bool path_mkdirs(const char *dir, mode_t mode);
/* dir without its trailing slashes ("out/" and "out" name one folder);
 * the caller frees it. */
char *path_trim(const char *dir);

#endif
