/*
 * fuzz_jobfile.c: libFuzzer target for the job-file parser, the whole way
 * from bytes to atomic jobs: loading as YAML and as JSON, merging,
 * validation, expansion, path_params, and the YAML and JSON output of
 * every atomic job.  Built with -Dfuzz=true (clang); run by scripts/fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "jobs/emit.h"
#include "jobs/jobfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one(const char *name, const uint8_t *data, size_t size)
{
	struct jobfile_options opt = {JOBFILE_AUTO, 200};
	struct jobfile *jf;
	struct errlist el;

	errlist_init(&el);
	jf = jobfile_split(name, (const char *)data, size, &opt, &el);
	for (size_t i = 0; jf != NULL && i < jf->njobs; i++) {
		json_t *j = jobfile_job_json(&jf->jobs[i]);
		char *y = emit_yaml(jf->jobs[i].job, jf->jobs[i].key);

		if (j == NULL)
			abort(); /* an atomic job must always have JSON */
		json_decref(j);
		free(y);
	}
	jobfile_free(jf);
	errlist_sort(&el);
	json_decref(errlist_to_json(&el, true));
	errlist_release(&el);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one("fuzz.yaml", data, size);
	one("fuzz.json", data, size);
	return 0;
}
