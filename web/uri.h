/*
 * uri.h: a request's URI checked before libmicrohttpd parses it.  MHD
 * keeps every query argument in the connection's few KiB and decodes
 * "%00" into a NUL that cuts a value short, so robotd refuses what no
 * request of its API has: more than URI_MAX_ARGS arguments, more than
 * URI_MAX_LEN bytes, or a "%XX" that decodes to a control character.
 */
#ifndef ROBOT_URI_H
#define ROBOT_URI_H

#define URI_MAX_ARGS 128
#define URI_MAX_LEN  8192

/*
 * 0 when uri may be parsed; else the status to answer, 414 (too long,
 * too many arguments) or 400 (a control character), and *why, allocated,
 * naming the query argument at fault when there is one.
 */
int uri_check(const char *uri, char **why);

#endif
