/*
 * catalog.h: what the robot knows of LKP's programs and job keys.
 *
 * LKP learns a program's options from comment lines in its scripts; the
 * robot keeps the same facts in one table: the setup programs (disk, md,
 * fs, fs2, iosched, cpufreq_governor, sysctl), the workloads (fsmark, dd,
 * unlink, and LKP ones it does not run), LKP's monitors, and the top-level
 * keys that are not programs.  Each option has LKP's type ('-' plain, '='
 * shown as name=value in path_params) and the kind of value it takes.
 *
 * A program the robot does not run is still known: a job file naming it
 * is valid and splits as in LKP; a box refuses it later with the reason.
 */
#ifndef ROBOT_CATALOG_H
#define ROBOT_CATALOG_H

#include <stdbool.h>

#include "robot/core/node.h"

enum catalog_kind {
	CATALOG_SETUP,    /* prepares the box: disks, filesystems, tunables */
	CATALOG_WORKLOAD, /* the test itself */
	CATALOG_MONITOR,  /* samples the box while the test runs */
};

enum catalog_value {
	CV_ANY,        /* any scalar */
	CV_NAME,       /* a name: letters, digits, '_', '-', '.', '+' */
	CV_SIZE,       /* a size above zero: 4K, 60G */
	CV_FILESIZE,   /* a size, zero allowed (empty files) */
	CV_THREADS,    /* 32, 32t, 2dd, 50% */
	CV_ITERATIONS, /* 1, 1x */
	CV_DIRS,       /* 16, 16d */
	CV_FPD,        /* 256, 256fpd */
	CV_DURATION,   /* 30s, 5m, 300 */
	CV_UINT,       /* a whole number, zero allowed */
	CV_POSINT,     /* a whole number above zero */
	CV_INT,        /* a whole number, negative allowed */
	CV_ENUM,       /* one of the option's choices */
	CV_ENUM_CI,    /* one of the choices, any letter case */
	CV_DISK,       /* 1BRD_48G, 3HDD, 1SSD, 2LOOP_1G, 1FILE_4G */
	CV_OPTS,       /* mkfs and mount options: no paths, no shell */
	CV_YN,         /* y or n */
	CV_REF,        /* a git commit or ref */
	CV_MAIL,       /* mail addresses */
};

struct catalog_option {
	const char *name;
	char type; /* '-' or '=' as in LKP's "# - name" lines */
	enum catalog_value value;
	const char *const *choices; /* for CV_ENUM, NULL-terminated */
};

struct catalog_program {
	const char *name;
	enum catalog_kind kind;
	bool runs;                /* the robot can run it */
	enum catalog_value value; /* of "program: value"; CV_ANY if none */
	const char *const *choices;
	const struct catalog_option *options; /* ends with a NULL name */
	bool named_options; /* options are settings named by the user */
	const char *note;   /* why it is not run, for messages */
};

/* A top-level key that is not a program. */
struct catalog_param {
	const char *name;
	enum catalog_value value;
	const char *const *choices;
	bool expands;    /* a list of values expands (commit, kconfig) */
	bool accumulate; /* lists from several documents add up (mail_to) */
};

/* fs_mark's sync methods, NULL-terminated; the index of a name is the
 * number fs_mark's -S takes (LKP's fsmark script). */
extern const char *const catalog_sync_methods[];

const struct catalog_program *catalog_program(const char *name);
const struct catalog_option *catalog_option(const struct catalog_program *p,
					    const char *name);
/* A program-independent option (LKP's wrapper options), or NULL. */
const struct catalog_option *catalog_global_option(const char *name);
/* The first program that has an option of this name, or NULL. */
const struct catalog_program *catalog_option_owner(const char *name);
const struct catalog_param *catalog_param(const char *name);
/* Whether key accumulates over documents, as LKP's mail_to and need_*. */
bool catalog_accumulates(const char *key);
/* Whether key is one of LKP's names the robot keeps but does not use (a
 * program, setup script or daemon it does not run, a need_* key). */
bool catalog_lkp_known(const char *key);
/* Whether key opens one of LKP's role sections ("if role server:"): its
 * mapping holds the keys of one role of a multi-box job. */
bool catalog_role_section(const char *key);
/* The workload a testcase name stands for ("dd-write" is dd), or NULL. */
const char *catalog_testcase_workload(const char *testcase);

/*
 * Checks one scalar (or null) value.  Returns NULL if it is valid, else a
 * message the caller frees (without the key: "'4Q' is not a size ...").
 */
char *catalog_check(enum catalog_value value, const char *const *choices,
		    const struct node *n);

/*
 * The closest known name to a misspelt word among a kind of names, for
 * "did you mean" hints; NULL if nothing is close.
 */
const char *catalog_suggest_program(const char *word);
const char *catalog_suggest_option(const struct catalog_program *p,
				   const char *word);
const char *catalog_suggest_key(const char *word);

#endif
