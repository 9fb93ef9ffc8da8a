/*
 * str.h: small string helpers shared by the parsers: quoting user input
 * safely for messages, UTF-8 checks, and "did you mean" suggestions.
 */
#ifndef ROBOT_STR_H
#define ROBOT_STR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Returns a printable copy of user input for a message: control bytes and
 * invalid UTF-8 escaped as \xNN, cut to max bytes with "..." added.  The
 * caller frees it.
 */
char *str_printable(const char *s, size_t len, size_t max);
/* Same as str_printable() for a NUL-terminated string, cut at 80 bytes. */
char *str_quote(const char *s);
/* Length of the valid UTF-8 sequence at s (len > 0 bytes), or 0. */
size_t str_utf8_seq_len(const unsigned char *s, size_t len);
bool str_utf8_valid(const char *s, size_t len);
/* s (len bytes) as valid UTF-8: each byte that starts no valid sequence
 * becomes U+FFFD, and a NUL too.  A new string (xmalloc). */
char *str_utf8_fix(const char *s, size_t len);
bool str_has_prefix(const char *s, const char *prefix);
/* s (*len bytes) without the blanks (spaces, tabs) at either end: where
 * it starts, its length in *len. */
const char *str_trim_blanks(const char *s, size_t *len);
bool str_has_suffix(const char *s, const char *suffix);
/* Optimal string alignment distance (Damerau-Levenshtein), ASCII-wise. */
size_t str_edit_distance(const char *a, const char *b);
/*
 * Returns the candidate closest to word, or NULL when none is close enough
 * to be a likely typo.  candidates is a NULL-terminated array.
 */
const char *str_closest(const char *word, const char *const *candidates);

/*
 * A double as Ruby's Float#to_s prints it in the common cases: the
 * shortest form that reads back the same, with ".0" when it is whole
 * (8324.8, 390190.0).  The caller frees the result.
 */
char *str_ruby_float(double d);

#endif
