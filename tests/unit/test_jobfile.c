/*
 * test_jobfile.c: whole job files: LKP's split-job fixtures and real job
 * files, merging of documents, and every kind of bad input.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobfile.h"
#include "robot/core/buf.h"
#include "robot/core/docload.h"
#include "tap.h"

static bool
str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static struct jobfile *
split(const char *name, const char *text, struct errlist *el)
{
	errlist_init(el);
	return jobfile_split(name, text, strlen(text), NULL, el);
}

/* All path_params of jf joined by ';'. */
static char *
params(const struct jobfile *jf)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; jf != NULL && i < jf->njobs; i++)
		buf_addf(&b, "%s;", jf->jobs[i].path_params);
	return buf_detach(&b);
}

/* Whether el holds an error at line whose message contains text. */
static bool
has_error(const struct errlist *el, int line, const char *text)
{
	for (size_t i = 0; i < el->n; i++)
		if (el->v[i].severity == ERRLIST_ERROR &&
		    el->v[i].line == line &&
		    strstr(el->v[i].message, text) != NULL)
			return true;
	tap_diag("no error at line %d containing '%s'; have:", line, text);
	for (size_t i = 0; i < el->n; i++) {
		char *s = errlist_format(&el->v[i]);

		tap_diag("  %s", s);
		free(s);
	}
	return false;
}

/*
 * LKP's spec/fixtures/split-job: N.yaml splits into N-<path_params>.yaml.
 * Each atomic job's keys must equal the expected file's (which has more
 * keys: the lab's).
 */
static void
test_lkp_split_job_fixtures(void)
{
	char dir[4096];
	struct dirent *de;
	int inputs = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/fixtures/lkp/split-job",
		 tap_shared_dir());
	if (!CHECK((d = opendir(dir)) != NULL))
		return;
	while ((de = readdir(d)) != NULL) {
		char path[8192], stem[256], *data;
		struct jobfile *jf;
		struct errlist el;
		size_t len, want = 0;
		struct dirent *de2;
		DIR *d2;

		if (strchr(de->d_name, '-') != NULL ||
		    strstr(de->d_name, ".yaml") == NULL)
			continue;
		inputs++;
		snprintf(stem, sizeof stem, "%.*s",
			 (int)(strlen(de->d_name) - 5), de->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		data = tap_read_file(path, &len);
		errlist_init(&el);
		jf = jobfile_split(path, data, len, NULL, &el);
		free(data);
		if (!CHECK(jf != NULL)) {
			errlist_print(&el, stdout);
			errlist_release(&el);
			continue;
		}
		/* The expected outputs: stem-*.yaml. */
		d2 = opendir(dir);
		while ((de2 = readdir(d2)) != NULL)
			if (strncmp(de2->d_name, stem, strlen(stem)) == 0 &&
			    de2->d_name[strlen(stem)] == '-')
				want++;
		closedir(d2);
		CHECK_INT(jf->njobs, want);
		for (size_t i = 0; i < jf->njobs; i++) {
			struct errlist el2;
			struct node *docs, *exp;
			char *text;

			snprintf(path, sizeof path, "%s/%s-%s.yaml", dir, stem,
				 jf->jobs[i].path_params);
			text = tap_read_file(path, &len);
			if (!CHECK(text != NULL)) {
				tap_diag("no %s", path);
				continue;
			}
			errlist_init(&el2);
			docs = docload_yaml(path, text, len, &el2);
			free(text);
			if (!CHECK(docs != NULL))
				continue;
			exp = docs->items[docs->nitems - 1];
			for (size_t k = 0; k < jf->jobs[i].job->npairs; k++) {
				struct node_pair *p =
					&jf->jobs[i].job->pairs[k];
				struct node *e = node_get(exp, p->key);

				/* LKP drops its scheduler's keys (queue,
				 * id, ...) from "compatible" jobs. */
				if (e == NULL &&
				    strcmp(stem, "compatible") == 0)
					continue;
				if (!CHECK(e != NULL &&
					   node_equal(e, p->value)))
					tap_diag("%s: key %s differs", path,
						 p->key);
			}
			node_free(docs);
			errlist_release(&el2);
		}
		jobfile_free(jf);
		errlist_release(&el);
	}
	closedir(d);
	CHECK_INT(inputs, 5);
}

/* LKP's real job files and the path_params LKP's split-job gave. */
static void
test_lkp_real_job_files(void)
{
	char dir[4096];
	struct dirent *de;
	int files = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/fixtures/lkp/jobs", tap_shared_dir());
	if (!CHECK((d = opendir(dir)) != NULL))
		return;
	while ((de = readdir(d)) != NULL) {
		char path[8192], *expected, *got;
		struct jobfile *jf;
		struct errlist el;
		size_t n;

		if (strstr(de->d_name, ".yaml") == NULL)
			continue;
		files++;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		errlist_init(&el);
		jf = jobfile_split_path(path, NULL, &el);
		if (!CHECK(jf != NULL)) {
			errlist_print(&el, stdout);
			errlist_release(&el);
			continue;
		}
		CHECK_INT(el.nerrors, 0);
		snprintf(path, sizeof path, "%s/expected/%.*s.txt", dir,
			 (int)(strlen(de->d_name) - 5), de->d_name);
		expected = tap_read_file(path, &n);
		if (!CHECK(expected != NULL))
			continue;
		/* Every expected line is one of ours, and as many. */
		size_t lines = 0;

		for (char *line = expected, *nl; *line != '\0'; line = nl + 1) {
			bool found = false;

			nl = strchr(line, '\n');
			if (nl == NULL)
				nl = line + strlen(line) - 1;
			else
				*nl = '\0';
			lines++;
			for (size_t i = 0; i < jf->njobs; i++)
				if (strcmp(jf->jobs[i].path_params, line) == 0)
					found = true;
			if (!CHECK(found))
				tap_diag("%s: missing %s", de->d_name, line);
		}
		CHECK_INT(jf->njobs, lines);
		got = params(jf);
		free(got);
		free(expected);
		jobfile_free(jf);
		errlist_release(&el);
	}
	closedir(d);
	CHECK_INT(files, 21);
}

/* The atomic job of path_params among jf's, or NULL. */
static const struct atomic_job *
job_of(const struct jobfile *jf, const char *path_params)
{
	for (size_t i = 0; i < jf->njobs; i++)
		if (strcmp(jf->jobs[i].path_params, path_params) == 0)
			return &jf->jobs[i];
	return NULL;
}

/*
 * LKP's own atomic jobs of the files with includes, templates, fuse and
 * roles (expected-jobs/NAME/PATH_PARAMS.yaml): each of ours has the same
 * keys, in the same order, with the same values (the keys LKP's
 * scheduler adds left out).
 */
static void
test_lkp_expected_jobs(void)
{
	static const char *const lkp_keys[] = {"job_origin", "testbox", "arch",
					       "tbox_group", NULL};
	char dir[4096];
	struct dirent *de;
	int files = 0, jobs = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/fixtures/lkp/jobs/expected-jobs",
		 tap_shared_dir());
	if (!CHECK((d = opendir(dir)) != NULL))
		return;
	while ((de = readdir(d)) != NULL) {
		char path[8192];
		struct jobfile *jf;
		struct errlist el;
		struct dirent *e2;
		DIR *d2;

		if (de->d_name[0] == '.')
			continue;
		files++;
		snprintf(path, sizeof path, "%s/../%s.yaml", dir, de->d_name);
		errlist_init(&el);
		jf = jobfile_split_path(path, NULL, &el);
		if (!CHECK(jf != NULL)) {
			errlist_print(&el, stdout);
			errlist_release(&el);
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		d2 = opendir(path);
		while (d2 != NULL && (e2 = readdir(d2)) != NULL) {
			char file[8192 + 256], *text, stem[256];
			const struct atomic_job *aj;
			struct node *docs, *exp;
			struct errlist el2;
			size_t len, k = 0;

			if (!str_ends(e2->d_name, ".yaml"))
				continue;
			jobs++;
			snprintf(stem, sizeof stem, "%.*s",
				 (int)(strlen(e2->d_name) - 5), e2->d_name);
			aj = job_of(jf, stem);
			if (!CHECK(aj != NULL)) {
				tap_diag("%s: no atomic job %s", de->d_name,
					 stem);
				continue;
			}
			snprintf(file, sizeof file, "%s/%s", path, e2->d_name);
			text = tap_read_file(file, &len);
			errlist_init(&el2);
			docs = docload_yaml(file, text, len, &el2);
			free(text);
			if (!CHECK(docs != NULL))
				continue;
			exp = docs->items[docs->nitems - 1];
			for (size_t i = 0; lkp_keys[i] != NULL; i++)
				node_del(exp, lkp_keys[i]);
			CHECK_INT(aj->job->npairs, exp->npairs);
			for (size_t i = 0; i < exp->npairs; i++) {
				const struct node_pair *p = &exp->pairs[i];

				while (k < aj->job->npairs &&
				       strcmp(aj->job->pairs[k].key, p->key) !=
					       0)
					k++;
				if (!CHECK(k < aj->job->npairs &&
					   node_equal(aj->job->pairs[k].value,
						      p->value)))
					tap_diag("%s/%s: key %s differs or is "
						 "out of order",
						 de->d_name, stem, p->key);
			}
			node_free(docs);
			errlist_release(&el2);
		}
		if (d2 != NULL)
			closedir(d2);
		jobfile_free(jf);
		errlist_release(&el);
	}
	closedir(d);
	CHECK_INT(files, 9);
	CHECK_INT(jobs, 205);
}

/* Writes text to dir/name. */
static void
put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (fp == NULL)
		abort();
	fputs(text, fp);
	fclose(fp);
}

static struct jobfile *
split_file(const char *dir, const char *name, const struct jobfile_options *o,
	   struct errlist *el)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	errlist_init(el);
	return jobfile_split_path(path, o, el);
}

/* Whether el holds an error whose text contains text, at any line. */
static bool
has_error_anywhere(const struct errlist *el, const char *text)
{
	for (size_t i = 0; i < el->n; i++)
		if (el->v[i].severity == ERRLIST_ERROR &&
		    strstr(el->v[i].message, text) != NULL)
			return true;
	tap_diag("no error containing '%s'", text);
	for (size_t i = 0; i < el->n; i++) {
		char *f = errlist_format(&el->v[i]);

		tap_diag("  %s", f);
		free(f);
	}
	return false;
}

static void
test_includes(void)
{
	char dir[] = "/tmp/robot-include-XXXXXX";
	struct errlist el;
	struct jobfile *jf;
	const struct node *j;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	CHECK_INT(system("mkdir -p /tmp/robot-include-sub"), 0);
	put(dir, "base.yaml",
	    "suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\nfs: xfs\n"
	    "<<: common.yaml\n"
	    "fsmark:\n  filesize: 4K\n  test_size: 1G\n");
	put(dir, "common.yaml", "iterations: 1x\nnr_threads: 1t\n");
	/* Keys before the include take the included value where they
	 * stand; keys after it override it. */
	put(dir, "top.yaml",
	    "category: benchmark\n<<: base.yaml\ndisk: 1SSD\n");
	jf = split_file(dir, "top.yaml", NULL, &el);
	if (CHECK(jf != NULL) && CHECK_INT(jf->njobs, 1)) {
		j = jf->jobs[0].job;
		CHECK_STR(j->pairs[0].key, "category");
		CHECK_STR(j->pairs[1].key, "suite");
		CHECK_STR(node_get(j, "disk")->text, "1SSD");
		CHECK_STR(j->pairs[3].key, "disk"); /* where base had it */
		CHECK_STR(node_get(j, "iterations")->text, "1x"); /* nested */
	}
	jobfile_free(jf);
	errlist_release(&el);
	/* The mapping form: overrides replace or add, ignore leaves out. */
	put(dir, "map.yaml",
	    "<<: {file: base.yaml, disk: '2HDD', nr_threads: 2t, "
	    "ignore: [iterations]}\n");
	jf = split_file(dir, "map.yaml", NULL, &el);
	if (CHECK(jf != NULL) && CHECK_INT(jf->njobs, 1)) {
		j = jf->jobs[0].job;
		CHECK_STR(node_get(j, "disk")->text, "2HDD");
		CHECK_STR(node_get(j, "nr_threads")->text, "2t");
		CHECK(node_get(j, "iterations") == NULL);
	}
	jobfile_free(jf);
	errlist_release(&el);
	/* A cycle, a missing file, a file of several documents. */
	put(dir, "a.yaml", "suite: fsmark\n<<: b.yaml\n");
	put(dir, "b.yaml", "fs: xfs\n<<: a.yaml\n");
	CHECK(split_file(dir, "a.yaml", NULL, &el) == NULL);
	CHECK(has_error(&el, 2, "'a.yaml' includes itself"));
	errlist_release(&el);
	put(dir, "c.yaml", "suite: fsmark\n\n<<: nowhere.yaml\n");
	CHECK(split_file(dir, "c.yaml", NULL, &el) == NULL);
	CHECK(has_error(&el, 3, "included file 'nowhere.yaml' not found"));
	errlist_release(&el);
	put(dir, "two.yaml", "fs: xfs\n---\nfs: ext4\n");
	put(dir, "d.yaml", "<<: two.yaml\n");
	CHECK(split_file(dir, "d.yaml", NULL, &el) == NULL);
	CHECK(has_error(&el, 1, "holds 2 documents"));
	errlist_release(&el);
	/* robotd never reads a file a job names. */
	errlist_init(&el);
	CHECK(jobfile_split("job.yaml", "<<: /etc/passwd\n", 16, NULL, &el) ==
	      NULL);
	CHECK(has_error(&el, 1, "robotd cannot read your files"));
	errlist_release(&el);
	snprintf(dir + strlen(dir), 1, "%s", "");
	{
		char cmd[4200];

		snprintf(cmd, sizeof cmd, "rm -rf '%s' /tmp/robot-include-sub",
			 dir);
		CHECK_INT(system(cmd), 0);
	}
}

/* What robot cannot run: a warning in split, an error where jobs run. */
static void
test_unrunnable(void)
{
	static const char *const cases[][2] = {
		{"disk: 2pmem\nfs: xfs\n", "this lab has no pmem disks"},
		{"disk: 1HDD\nfs: xfs\nfuse:\n  thread_model: serialized\n",
		 "does not set up FUSE mounts"},
		{"disk: 1HDD\nfs: xfs\nmd: RAID0\n", "md RAID"},
		{"disk: 1HDD\nfs: xfs\nsysctl:\n  sc_hostname: x\n",
		 "not sc_hostname (/proc/sys/kernel/hostname)"},
		{"if role server:\n  disk: 1HDD\n  fs: ext4\n"
		 "if role client:\n  fs: nfsv4\n",
		 "server and client roles need a box for each role"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct jobfile_options run = {JOBFILE_AUTO, 0, false, true};
		char text[512];
		struct jobfile *jf;
		struct errlist el;
		bool warned = false;

		snprintf(text, sizeof text,
			 "suite: dd-write\ntestcase: dd-write\n%sdd:\n"
			 "  bs: 1M\nruntime: 1s\n",
			 cases[i][0]);
		jf = split("u.yaml", text, &el);
		CHECK(jf != NULL);
		for (size_t k = 0; k < el.n; k++)
			warned = warned ||
				 (el.v[k].severity == ERRLIST_WARNING &&
				  strstr(el.v[k].message, cases[i][1]) != NULL);
		if (!CHECK(warned))
			tap_diag("no warning with '%s'", cases[i][1]);
		jobfile_free(jf);
		errlist_release(&el);
		errlist_init(&el);
		jf = jobfile_split("u.yaml", text, strlen(text), &run, &el);
		CHECK(jf == NULL);
		CHECK(has_error_anywhere(&el, cases[i][1]));
		errlist_release(&el);
	}
}

/* LKP's templates in a file, the unquoted multi-line form included;
 * the lines after it keep their numbers. */
static void
test_templates_in_a_file(void)
{
	struct errlist el;
	struct jobfile *jf =
		split("t.yaml",
		      "suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\n"
		      "fs: [xfs, ext4]\nfsmark:\n  filesize: [9B, 8K, 16M]\n"
		      "  test_size: {{\n"
		      "      case fsmark.filesize\n"
		      "      when '9B' then '256M'\n"
		      "      when '8K' then '1G'\n"
		      "      end\n"
		      "    }}\n"
		      "  sync_method: \"{{ fs == 'xfs' ? 'NoSync' : "
		      "'fsyncBeforeClose' }}\"\n",
		      &el);
	char *p;

	if (!CHECK(jf != NULL))
		return;
	/* 16M matches no "when": nil, no job, as in LKP. */
	p = params(jf);
	CHECK_STR(p, "1HDD-9B-xfs-NoSync-256M;1HDD-8K-xfs-NoSync-1G;"
		     "1HDD-9B-ext4-fsyncBeforeClose-256M;"
		     "1HDD-8K-ext4-fsyncBeforeClose-1G;");
	free(p);
	jobfile_free(jf);
	errlist_release(&el);
	/* A template's value is checked like the value it stands for. */
	jf = split("t.yaml",
		   "suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\nfs: xfs\n"
		   "fsmark:\n  filesize: 8K\n  test_size: 1G\n"
		   "  sync_method: {{ 'fsync' }}\n",
		   &el);
	CHECK(jf == NULL);
	CHECK(has_error(&el, 8, "sync_method, as its template gives it"));
	errlist_release(&el);
	/* After a template over several lines, lines keep their numbers. */
	jf = split("t.yaml",
		   "suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\nfs: xfs\n"
		   "fsmark:\n  filesize: 8K\n  test_size: {{\n    case fs\n"
		   "    when 'xfs' then '1G'\n    end\n  }}\n"
		   "nr_threads: 1x1\n",
		   &el);
	CHECK(jf == NULL);
	CHECK(has_error(&el, 12, "nr_threads"));
	errlist_release(&el);
}

/* "[nfsv4, ]" is one element in YAML and in LKP. */
static void
test_trailing_comma(void)
{
	struct errlist el;
	struct jobfile *jf =
		split("c.yaml",
		      "suite: fsmark\ntestcase: fsmark\ndisk: 1HDD\n"
		      "fs: xfs\nfs2: [nfsv4, ]\nfsmark:\n  filesize: 8K\n",
		      &el);

	if (CHECK(jf != NULL))
		CHECK_INT(jf->njobs, 1);
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_fsmark_matrix(void)
{
	struct errlist el;
	struct jobfile *jf =
		split("m.yaml",
		      "suite: fsmark\ntestcase: fsmark\niterations: 1x\n"
		      "nr_threads: [1t, 32t]\ndisk: 1BRD_48G\n"
		      "fs: [xfs, ext4, btrfs]\nfs2: [nfsv4, ~]\n"
		      "fsmark:\n  filesize: [9B, 5K, 8K]\n  test_size: 60G\n"
		      "  sync_method: fsyncBeforeClose\n",
		      &el);

	if (!CHECK(jf != NULL))
		return;
	CHECK_INT(jf->njobs, 2 * 3 * 2 * 3);
	CHECK_STR(jf->jobs[0].key,
		  "fsmark/1BRD_48G-9B-xfs-nfsv4-1x-1t-fsyncBeforeClose-60G");
	CHECK_STR(jf->jobs[1].key,
		  "fsmark/1BRD_48G-5K-xfs-nfsv4-1x-1t-fsyncBeforeClose-60G");
	CHECK_STR(jf->jobs[3].path_params,
		  "1BRD_48G-9B-xfs-1x-1t-fsyncBeforeClose-60G");
	CHECK_STR(jf->jobs[35].path_params,
		  "1BRD_48G-8K-btrfs-1x-32t-fsyncBeforeClose-60G");
	/* "Without it": the key stays, empty. */
	CHECK_INT(node_get(jf->jobs[3].job, "fs2")->kind, NODE_NULL);
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_dd_matrix_and_sysctl(void)
{
	struct errlist el;
	struct jobfile *jf =
		split("d.yaml",
		      "suite: dd-write\ntestcase: dd-write\ndisk: 3LOOP_1G\n"
		      "fs: xfs\nnr_threads: [1dd, 10dd, 100dd]\nruntime: 30s\n"
		      "sysctl:\n  sc_dirty_ratio: [10, 40]\ndd:\n  bs: 1M\n",
		      &el);
	char *p;

	if (!CHECK(jf != NULL))
		return;
	p = params(jf);
	/* LKP's sysctl settings are '-' options: the value alone. */
	CHECK_STR(p, "1M-3LOOP_1G-xfs-1dd-30s-10;"
		     "1M-3LOOP_1G-xfs-1dd-30s-40;"
		     "1M-3LOOP_1G-xfs-10dd-30s-10;"
		     "1M-3LOOP_1G-xfs-10dd-30s-40;"
		     "1M-3LOOP_1G-xfs-100dd-30s-10;"
		     "1M-3LOOP_1G-xfs-100dd-30s-40;");
	CHECK_STR(jf->jobs[0].testcase, "dd-write");
	free(p);
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_documents_merge(void)
{
	struct errlist el;
	struct jobfile *jf = split(
		"docs.yaml",
		"suite: fsmark\nnr_threads: 1\ndisk: 1HDD\nfs: xfs\n"
		"mail_to: a@x.org\n"
		"fsmark:\n  filesize: 4M\n  test_size: 30G\n"
		"---\nnr_threads: 64\nfsmark.test_size: 60G\nmail_to: b@x.org\n"
		"---\nfs: [ext4, btrfs]\nfsmark:\n  filesize: 4K\n",
		&el);
	char *p;

	if (!CHECK(jf != NULL))
		return;
	p = params(jf);
	/* The first alone, then each later one merged into it; dotted
	 * keys revise one value; a top-level key replaces wholesale. */
	CHECK_STR(p, "1HDD-4M-xfs-1-30G;1HDD-4M-xfs-64-60G;1HDD-4K-ext4-1;"
		     "1HDD-4K-btrfs-1;");
	CHECK_INT(node_get(jf->jobs[1].job, "mail_to")->nitems, 2);
	CHECK_INT(node_get(jf->jobs[0].job, "mail_to")->kind, NODE_SCALAR);
	CHECK_INT(jf->jobs[1].document, 1);
	CHECK_INT(jf->jobs[3].document, 2);
	free(p);
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_common_first_document_gives_no_job(void)
{
	struct errlist el;
	struct jobfile *jf = split("c.yaml",
				   "disk: 1HDD\nfs: xfs\n---\ndd:\n---\n"
				   "fsmark:\n",
				   &el);

	if (!CHECK(jf != NULL))
		return;
	CHECK_INT(jf->njobs, 2);
	CHECK_STR(jf->jobs[0].key, "dd/1HDD-xfs");
	CHECK_STR(jf->jobs[1].key, "fsmark/1HDD-xfs");
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_same_job_twice_kept_once(void)
{
	struct errlist el;
	struct jobfile *jf = split("t.yaml",
				   "fs: xfs\ndd:\n  bs: 1M\ncategory: a\n---\n"
				   "category: b\n",
				   &el);

	if (!CHECK(jf != NULL))
		return;
	CHECK_INT(jf->njobs, 1);
	CHECK_INT(el.nwarnings, 1);
	CHECK_STR(node_get(jf->jobs[0].job, "category")->text, "b");
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_commits_expand_not_in_key(void)
{
	struct errlist el;
	struct jobfile *jf = split(
		"c.yaml", "dd:\nfs: xfs\ncommit: [0123456, abcdef1]\n", &el);

	if (!CHECK(jf != NULL))
		return;
	CHECK_INT(jf->njobs, 2);
	CHECK_STR(jf->jobs[0].key, jf->jobs[1].key);
	CHECK_STR(jf->jobs[0].commit, "0123456"); /* not octal */
	CHECK_STR(jf->jobs[1].commit, "abcdef1");
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_json_job_file(void)
{
	struct errlist el;
	struct jobfile *jf = split("j.json",
				   "{\"suite\": \"dd\", \"fs\": [\"xfs\", "
				   "\"ext4\"],\n \"dd\": {\"bs\": \"4k\"}}",
				   &el);

	if (!CHECK(jf != NULL))
		return;
	CHECK_INT(jf->njobs, 2);
	CHECK_STR(jf->jobs[1].key, "dd/4k-ext4");
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_every_problem_at_once(void)
{
	struct errlist el;
	struct jobfile *jf = split("bad.yaml",
				   "suite: fsmark\n"                    /* 1 */
				   "testcase: fsmrk\n"                  /* 2 */
				   "nr_thread: 32t\n"                   /* 3 */
				   "iterations: 1y\n"                   /* 4 */
				   "disk: 1BRD_0G\n"                    /* 5 */
				   "fs: [xfs, btrfz]\n"                 /* 6 */
				   "fsmark:\n"                          /* 7 */
				   "  filsize: 4K\n"                    /* 8 */
				   "  test_size: -60G\n"                /* 9 */
				   "  nr_files_per_directory: {a: 1}\n" /* 10 */
				   "sysctl:\n"                          /* 11 */
				   "  sc_dirty_ration: 10\n"            /* 12 */
				   "  kernel.panic: 1\n"                /* 13 */
				   "fsmrk:\n"                           /* 14 */
				   "  filesize: 4K\n"                   /* 15 */
				   "repeat: [1, 2]\n"                   /* 16 */
				   "mail_to: notmail\n"                 /* 17 */
				   "nr_threads: \"{{ 2 * 2 }}\"\n"      /* 18 */
				   "vm.dirty_ratio: 10\n"               /* 19 */
				   "fs-: xfs\n",                        /* 20 */
				   &el);

	CHECK(jf == NULL);
	CHECK(has_error(&el, 2,
			"unknown testcase 'fsmrk' (did you mean "
			"'fsmark'?)"));
	CHECK(has_error(&el, 3,
			"unknown key 'nr_thread' (did you mean "
			"'nr_threads'?)"));
	CHECK(has_error(&el, 4, "'1y' is not an iteration count"));
	CHECK(has_error(&el, 5, "must be more than zero"));
	CHECK(has_error(&el, 6,
			"'btrfz' is not a known value (did you mean "
			"'btrfs'?)"));
	CHECK(has_error(&el, 8,
			"unknown option 'filsize' of fsmark (did you "
			"mean 'filesize'?)"));
	CHECK(has_error(&el, 9, "'-60G' must be more than zero"));
	CHECK(has_error(&el, 10, "is a mapping; a single value is expected"));
	CHECK(has_error(&el, 12, "did you mean 'sc_dirty_ratio'?"));
	CHECK(has_error(&el, 13, "is written 'sc_panic' in LKP's job files"));
	CHECK(has_error(&el, 14,
			"unknown program 'fsmrk' (did you mean "
			"'fsmark'?)"));
	CHECK(has_error(&el, 16, "repeat takes one value, not a list"));
	CHECK(has_error(&el, 17, "is not a mail address"));
	CHECK(has_error(&el, 18, "'*' is not supported in a template"));
	CHECK(has_error(&el, 19, "write it under 'sysctl:' as sc_dirty_ratio"));
	CHECK(has_error(&el, 20,
			"'key+' and 'key-' revisions are not "
			"supported"));
	errlist_release(&el);
}

static void
test_whole_file_problems(void)
{
	struct errlist el;
	struct jobfile *jf;
	char *big;

	jf = split("empty.yaml", "", &el);
	CHECK(jf == NULL && has_error(&el, 0, "the job file is empty"));
	errlist_release(&el);
	jf = split("blank.yaml", "# nothing here\n\n---\n", &el);
	CHECK(jf == NULL && has_error(&el, 1, "the job file is empty"));
	errlist_release(&el);
	big = malloc(JOBFILE_MAX_BYTES + 2);
	memset(big, 'a', JOBFILE_MAX_BYTES + 1);
	big[JOBFILE_MAX_BYTES + 1] = '\0';
	jf = split("big.yaml", big, &el);
	CHECK(jf == NULL && has_error(&el, 0, "limited to 1 MiB"));
	errlist_release(&el);
	free(big);
	jf = split("erb.yaml", "suite: dd\n<% if x %>\ndd:\n<% end %>\n", &el);
	CHECK(jf == NULL && has_error(&el, 2, "ERB templates"));
	CHECK(has_error(&el, 4, "ERB templates"));
	errlist_release(&el);
	jf = split("list.yaml", "- a\n- b\n", &el);
	CHECK(jf == NULL && has_error(&el, 1, "document 1 is a list"));
	errlist_release(&el);
	jf = split("bad.yaml", "fs: [xfs\n", &el);
	CHECK(jf == NULL && el.nerrors == 1);
	CHECK(strstr(el.v[0].message, "malformed YAML") != NULL);
	errlist_release(&el);
	jf = split("bad.json", "{\"fs\": }", &el);
	CHECK(jf == NULL && has_error(&el, 1, "malformed JSON"));
	errlist_release(&el);
	jf = split("none.yaml", "disk: 1HDD\nfs: xfs\n", &el);
	CHECK(jf == NULL && has_error(&el, 1, "runs no workload"));
	errlist_release(&el);
	jf = split("two.yaml", "dd:\nfsmark:\n", &el);
	CHECK(jf == NULL && has_error(&el, 1, "runs 2 workloads"));
	errlist_release(&el);
	jf = split("tc.yaml", "testcase: dd\nfsmark:\n", &el);
	CHECK(jf == NULL && has_error(&el, 1,
				      "testcase 'dd' runs dd, but the "
				      "job runs fsmark"));
	errlist_release(&el);
	jf = split("empty-list.yaml", "dd:\nfs: []\n", &el);
	CHECK(jf == NULL && has_error(&el, 2, "empty list"));
	errlist_release(&el);
	jf = split("scalar.yaml", "fsmark: 4K\n", &el);
	CHECK(jf == NULL && has_error(&el, 1, "takes a mapping of options"));
	errlist_release(&el);
	jf = split("dotted.yaml", "dd:\ndd.bs.x: 1\n---\ndd.bs: 4k\n", &el);
	/* dd.bs.x creates nested mappings, as in LKP, which bs refuses. */
	CHECK(jf == NULL && has_error(&el, 2, "bs: is a mapping"));
	errlist_release(&el);
	jf = split("dotted2.yaml", "dd:\n  bs: 4k\ndd.bs.x: 1\n", &el);
	CHECK(jf == NULL && has_error(&el, 3,
				      "'bs' is a string, not a "
				      "mapping"));
	errlist_release(&el);
}

static void
test_matrix_limit(void)
{
	struct jobfile_options opt = {JOBFILE_AUTO, 10};
	const char *text = "dd:\nfs: [xfs, ext4, btrfs]\n"
			   "nr_threads: [1dd, 2dd, 3dd, 4dd]\n";
	struct errlist el;
	struct jobfile *jf;

	errlist_init(&el);
	jf = jobfile_split("m.yaml", text, strlen(text), &opt, &el);
	CHECK(jf == NULL);
	CHECK(has_error(&el, 1,
			"the matrix gives 12 atomic jobs, over the "
			"limit of 10"));
	errlist_release(&el);
	opt.max_jobs = 12;
	errlist_init(&el);
	jf = jobfile_split("m.yaml", text, strlen(text), &opt, &el);
	CHECK(jf != NULL && jf->njobs == 12);
	jobfile_free(jf);
	errlist_release(&el);
	/* The default limit is 1,000; 11 lists of 2 give 2,048. */
	text = "dd:\n  bs: [1k, 2k]\n  size: [1G, 2G]\n  runtime: [1s, 2s]\n"
	       "nr_threads: [1, 2]\nfs: [xfs, ext4]\nfs2: [nfsv3, nfsv4]\n"
	       "md: [RAID0, RAID1]\niosched: [kyber, bfq]\n"
	       "disk: [1HDD, 2HDD]\ncpufreq_governor: [performance, "
	       "powersave]\n"
	       "commit: [aaaaaaa, bbbbbbb]\n";
	errlist_init(&el);
	jf = jobfile_split("m.yaml", text, strlen(text), NULL, &el);
	CHECK(jf == NULL && has_error(&el, 1,
				      "2048 atomic jobs, over the "
				      "limit of 1000"));
	errlist_release(&el);
}

static void
test_warnings_do_not_stop(void)
{
	struct errlist el;
	struct jobfile *jf = split("w.yaml",
				   "perf-c2c:\n  delay: 10\nneed_memory: 48G\n"
				   "lab_key: 1\ntest_size: 1G\ndd:\n",
				   &el);

	CHECK(jf != NULL);
	CHECK_INT(el.nerrors, 0);
	CHECK_INT(el.nwarnings, 3); /* monitor, unknown key, test_size */
	jobfile_free(jf);
	errlist_release(&el);
}

static void
test_job_json(void)
{
	struct errlist el;
	struct jobfile *jf =
		split("j.yaml", "dd:\n  bs: 4k\ncommit: abc1234\n", &el);
	json_t *j;

	if (!CHECK(jf != NULL))
		return;
	j = jobfile_job_json(&jf->jobs[0]);
	CHECK_STR(json_string_value(json_object_get(j, "path_params")), "4k");
	CHECK_STR(json_string_value(json_object_get(j, "key")), "dd/4k");
	CHECK_STR(json_string_value(json_object_get(j, "commit")), "abc1234");
	CHECK(json_is_object(json_object_get(j, "job")));
	json_decref(j);
	jobfile_free(jf);
	errlist_release(&el);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_lkp_split_job_fixtures),
		TAP_CASE(test_lkp_real_job_files),
		TAP_CASE(test_lkp_expected_jobs),
		TAP_CASE(test_includes),
		TAP_CASE(test_unrunnable),
		TAP_CASE(test_templates_in_a_file),
		TAP_CASE(test_trailing_comma),
		TAP_CASE(test_fsmark_matrix),
		TAP_CASE(test_dd_matrix_and_sysctl),
		TAP_CASE(test_documents_merge),
		TAP_CASE(test_common_first_document_gives_no_job),
		TAP_CASE(test_same_job_twice_kept_once),
		TAP_CASE(test_commits_expand_not_in_key),
		TAP_CASE(test_json_job_file),
		TAP_CASE(test_every_problem_at_once),
		TAP_CASE(test_whole_file_problems),
		TAP_CASE(test_matrix_limit),
		TAP_CASE(test_warnings_do_not_stop),
		TAP_CASE(test_job_json),
		{NULL, NULL}};

	return tap_run(cases);
}
