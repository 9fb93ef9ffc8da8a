/*
 * include.h: LKP's includes in job files, "<<: FILE" and
 * "<<: {file: FILE, key: value..., ignore: [keys]}", resolved as LKP's
 * yaml_merge_included_files() resolves them: FILE relative to the
 * including file (or absolute), its one document merged in place of the
 * include, the mapping's other keys overriding the included file's (or
 * added to it), the keys under "ignore" left out.  Included files may
 * include others; a cycle, a missing file or a file of several documents
 * is an error at the include's FILE:LINE.
 *
 * Only what reads a job file from a path resolves includes (robot split,
 * robot submit, robot-box run): robotd never reads files named by a job.
 */
#ifndef ROBOT_INCLUDE_H
#define ROBOT_INCLUDE_H

#include "robot/core/docload.h"
#include "robot/core/errlist.h"

struct include_ctx;

/* For the job file at path (its includes are relative to it). */
struct include_ctx *include_ctx_new(const char *path, struct errlist *el);
void include_ctx_free(struct include_ctx *c);
/* docload options that resolve includes through c. */
void include_options(struct include_ctx *c, struct docload_options *opt);
/* How many includes c resolved. */
size_t include_count(const struct include_ctx *c);

#endif
