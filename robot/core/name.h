/*
 * name.h: the one checker of names that come from outside: boxes, box
 * groups, trees, commits, series and metric names, wherever they enter
 * (the API's paths and query strings, a box's facts, result documents,
 * job files).  A name that passes holds no control character, no
 * invalid UTF-8, nothing a terminal or a log line would take for
 * markup, and no path that climbs ("..").
 */
#ifndef ROBOT_NAME_H
#define ROBOT_NAME_H

#include <stdbool.h>
#include <stddef.h>

enum name_kind {
	NAME_LABEL,  /* a box, a tbox_group, a tree, a file name:
		      * [A-Za-z0-9._+-], at most 100, no leading '-' or '.' */
	NAME_COMMIT, /* a commit or ref as given: a label's characters and
		      * '/', '~', '^', at most 200, no ".." */
	NAME_SERIES, /* testcase/path_params[/tbox_group]: path_params'
		      * characters and '/', at most 512 */
	NAME_METRIC, /* a metric: printable ASCII, at most 256 */
};

#define NAME_LABEL_MAX  100
#define NAME_COMMIT_MAX 200
#define NAME_SERIES_MAX 512
#define NAME_METRIC_MAX 256

/* NULL when the len bytes at s are a valid name of kind, else why not (a
 * static string: "holds a control character", ...). */
const char *name_check(enum name_kind kind, const char *s, size_t len);
/* name_check() of a NUL-terminated string. */
bool name_ok(enum name_kind kind, const char *s);
/* What a kind is called in messages ("a box or group name"). */
const char *name_kind_text(enum name_kind kind);

#endif
