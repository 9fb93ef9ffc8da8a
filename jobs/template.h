/*
 * template.h: LKP's "{{ ... }}" job templates, evaluated by our own
 * evaluator for the subset of Ruby that LKP's job files use (DESIGN.md
 * section 4): case/when/then/else/end, if/elsif/else/end, a ? b : c, ==,
 * !=, =~ /re/, !, &&, ||, parentheses, nil, true, false, string and number
 * literals, and references to the job's own keys (fs, fsmark.filesize).
 * Anything else (a method call, a constant such as File, backticks,
 * assignment, string interpolation) is refused with the construct named:
 * nothing is ever executed.
 *
 * As in LKP's Job#each_job, a value "HEAD{{ EXPR }}TAIL" becomes EXPR's
 * value when HEAD and TAIL are blank, else the string HEAD + value +
 * TAIL; a template whose value is nil gives no job at all.
 */
#ifndef ROBOT_TEMPLATE_H
#define ROBOT_TEMPLATE_H

#include <stdbool.h>

#include "robot/core/node.h"

/* Whether a value holds a template ("{{" and a later "}}"). */
bool template_has(const struct node *value);

/* Checks a template's syntax and constructs without evaluating it; false
 * with *err (the caller frees it). */
bool template_check(const struct node *value, char **err)
	__attribute__((warn_unused_result));
/*
 * Evaluates the template in value (a string scalar) against job, the
 * atomic job as expanded so far.  True with *out the new value (the
 * caller frees it), or NULL when it is nil; false with *err (the caller
 * frees it) when the template is outside the subset or malformed.
 */
bool template_eval(const struct node *value, const struct node *job,
		   struct node **out, char **err)
	__attribute__((warn_unused_result));

#endif
