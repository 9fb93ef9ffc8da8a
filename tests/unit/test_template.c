/*
 * test_template.c: LKP's "{{ }}" templates: each construct of the subset,
 * nil, the values as LKP gives them, and every refused construct named.
 */
#include <stdlib.h>
#include <string.h>

#include "jobs/template.h"
#include "robot/core/docload.h"
#include "robot/core/xmalloc.h"
#include "tap.h"

static struct node *job;

/* The value of template text against the job, as text ("nil" for nil,
 * "ERR: ..." for a refusal). */
static char *
eval(const char *text)
{
	struct node *v = node_new_str(text, strlen(text), 7, 3), *out;
	char *err, *s;

	if (!template_eval(v, job, &out, &err)) {
		s = xasprintf("ERR: %s", err);
		free(err);
	} else if (out == NULL) {
		s = xstrdup("nil");
	} else {
		s = node_to_s(out);
		node_free(out);
	}
	node_free(v);
	return s;
}

#define EVAL(text, want)                                                       \
	do {                                                                   \
		char *got_ = eval(text);                                       \
		CHECK_STR(got_, want);                                         \
		free(got_);                                                    \
	} while (0)

static void
load_job(void)
{
	static const char text[] = "fs: xfs\nfs2:\nnr: 32\nr: 1.5\nyes: true\n"
				   "fsmark:\n  filesize: 8K\n  sync: NoSync\n"
				   "list: [a, b]\n";
	struct errlist el;
	struct node *docs;

	errlist_init(&el);
	docs = docload_yaml("j.yaml", text, strlen(text), &el);
	job = node_copy(docs->items[0]);
	node_free(docs);
	errlist_release(&el);
}

static void
test_references_and_literals(void)
{
	EVAL("{{ fs }}", "xfs");
	EVAL("{{fsmark.filesize}}", "8K");
	EVAL("{{ nr }}", "32");
	EVAL("{{ r }}", "1.5");
	EVAL("{{ 'a b' }}", "a b");
	EVAL("{{ \"dq\" }}", "dq");
	EVAL("{{ 42 }}", "42");
	EVAL("{{ true }}", "true");
	/* Absent keys and null values are nil; nil gives no job. */
	EVAL("{{ nothing }}", "nil");
	EVAL("{{ fs2 }}", "nil");
	EVAL("{{ nil }}", "nil");
	EVAL("{{ fsmark.absent }}", "nil");
}

static void
test_operators(void)
{
	EVAL("{{ fs == 'xfs' }}", "true");
	EVAL("{{ fs != 'xfs' }}", "false");
	EVAL("{{ nr == 32 }}", "true");
	EVAL("{{ nr == '32' }}", "false"); /* Ruby: 32 != "32" */
	EVAL("{{ nr == 32.0 }}", "true");
	EVAL("{{ fs2 == nil }}", "true");
	EVAL("{{ fs =~ /^x/ }}", "true");
	EVAL("{{ fs =~ /^e/ }}", "false");
	EVAL("{{ !yes }}", "false");
	/* && and || give the operand that decided, as Ruby. */
	EVAL("{{ fs2 || 'none' }}", "none");
	EVAL("{{ fs && fsmark.sync }}", "NoSync");
	EVAL("{{ fs2 && absent.nested }}", "nil");
	EVAL("{{ fs == 'xfs' ? '50M' : '100M' }}", "50M");
	EVAL("{{ fs2 == 'nfsv4' ? '50M' : '100M' }}", "100M");
	EVAL("{{ (fs == 'ext4') || (nr == 32) }}", "true");
	/* A list compares equal to nothing. */
	EVAL("{{ list == 'a' }}", "false");
}

static void
test_case_and_if(void)
{
	/* LKP's own fsmark.yaml and fsmark-1hdd-400m.yaml forms. */
	EVAL("{{\n case fsmark.filesize\n when '9B' then '256M'\n"
	     " when '8K' then '1G'\n when '16MB' then '16G'\n end\n}}",
	     "1G");
	EVAL("{{ case fsmark.filesize when '16M' then '16G' end }}", "nil");
	EVAL("{{ case fs when 'ext4' then fs2 == 'nfsv4' ? '50M' : '100M' "
	     "when 'xfs' then fs2 == 'nfsv4' ? '50M' : '100M' "
	     "else fs2 == 'nfsv4' ? '200M' : '400M' end }}",
	     "100M");
	EVAL("{{ case fs when 'a', 'xfs' then 1 else 2 end }}", "1");
	EVAL("{{ case fs when /^x/ then 'x-ish' end }}", "x-ish");
	EVAL("{{ if fs == 'ext4' then 1 elsif fs == 'xfs' then 2 else 3 end }}",
	     "2");
	EVAL("{{ if fs2 then 1 end }}", "nil");
	/* A branch not taken is not evaluated, only checked. */
	EVAL("{{ fs == 'xfs' ? 1 : nosuch.key }}", "1");
}

static void
test_head_and_tail(void)
{
	EVAL("{{ fs }}-{{ nr }}", "{{ fs }}-32"); /* the last one first */
	EVAL("  {{ nr }}  ", "32");               /* blank: the value */
	EVAL("  {{ nr }}G  ", "32G");
	EVAL("size {{ nr }}G", "size 32G");
}

static void
test_refused(void)
{
	EVAL("{{ File.read('/etc/passwd') }}",
	     "ERR: template {{ File.read('/etc/passwd') }}: method call "
	     "'File.read(' is not supported");
	EVAL("{{ File }}", "ERR: template {{ File }}: constant 'File' is not "
			   "supported (only the job's own keys)");
	EVAL("{{ `id` }}", "ERR: template {{ `id` }}: backticks (a shell "
			   "command) are not supported");
	EVAL("{{ x = 1 }}",
	     "ERR: template {{ x = 1 }}: assignment ('=') is not supported");
	EVAL("{{ fs.upcase }}", "ERR: template {{ fs.upcase }}: method call "
				"'fs.upcase' is not supported ('fs' is not a "
				"mapping of the job)");
	EVAL("{{ \"#{fs}\" }}", "ERR: template {{ \"#{fs}\" }}: string "
				"interpolation ('#{') is not supported");
	EVAL("{{ system('x') }}",
	     "ERR: template {{ system('x') }}: 'system' is not supported in a "
	     "template");
	EVAL("{{ fs.empty? }}", "ERR: template {{ fs.empty? }}: method call "
				"'fs.empty?' is not supported");
	EVAL("{{ 2 * 2 }}",
	     "ERR: template {{ 2 * 2 }}: '*' is not supported in a template");
	EVAL("{{ case fs end }}",
	     "ERR: template {{ case fs end }}: 'when' expected after 'case'");
	EVAL("{{ fs == }}",
	     "ERR: template {{ fs == }}: the template ends too early");
	EVAL("{{ 'open }}",
	     "ERR: template {{ 'open }}: a string is not closed");
}

static void
test_check_without_job(void)
{
	struct node *v = node_new_str("{{ nosuch ? 1 : 2 }}", 20, 1, 1);
	char *err;

	CHECK(template_check(v, &err));
	node_free(v);
	v = node_new_str("{{ `x` }}", 9, 1, 1);
	CHECK(!template_check(v, &err));
	CHECK(err != NULL && strstr(err, "backticks") != NULL);
	free(err);
	node_free(v);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_references_and_literals),
		TAP_CASE(test_operators),
		TAP_CASE(test_case_and_if),
		TAP_CASE(test_head_and_tail),
		TAP_CASE(test_refused),
		TAP_CASE(test_check_without_job),
		{NULL, NULL},
	};
	int rc;

	load_job();
	rc = tap_run(cases);
	node_free(job);
	return rc;
}
