/*
 * analysis.c: the store's pairs (analysis.h).
 */
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/analysis.h"
#include "robot/daemon/store/call.h"
#include "robot/core/banned.h"

void
store_noise_decode(json_t *j, struct store_noise **out, size_t *n)
{
	json_t *m, *o;
	size_t i, k;

	*out = xcalloc(json_array_size(j) + 1, sizeof **out);
	*n = 0;
	json_array_foreach(j, i, m)
	{
		const char *metric = rjson_get_str(m, "metric");
		json_t *obs = json_object_get(m, "obs");
		struct store_noise *v = &(*out)[*n];

		if (metric == NULL || !json_is_array(obs))
			continue;
		v->metric = xstrdup(metric);
		v->obs = xcalloc(json_array_size(obs) + 1, sizeof *v->obs);
		json_array_foreach(obs, k, o)
		{
			json_t *var = json_array_get(o, 0),
			       *df = json_array_get(o, 1);

			if (!json_is_number(var) || !json_is_number(df))
				continue;
			v->obs[v->nobs].var = json_number_value(var);
			v->obs[v->nobs].df = json_number_value(df);
			v->nobs++;
		}
		(*n)++;
	}
}

void
store_noise_free(struct store_noise *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].metric);
		free(v[i].obs);
	}
	free(v);
}

void
store_pair_claim_free(struct store_pair_claim *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nopen; i++)
		free(c->open[i].kpi);
	free(c->open);
	store_noise_free(c->noise, c->nnoise);
	free(c->series);
	free(c->base);
	free(c->head);
	free(c);
}

/* robot_pair_next()'s JSON, decoded; NULL when it is not one. */
static void *
pair_claim_decode(const char *text)
{
	json_t *j = rjson_loads(text, NULL), *open, *o;
	struct store_pair_claim *c;
	size_t i;

	if (j == NULL || rjson_get_str(j, "series") == NULL ||
	    rjson_get_str(j, "base") == NULL ||
	    rjson_get_str(j, "head") == NULL ||
	    !json_is_integer(json_object_get(j, "pair"))) {
		json_decref(j);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->pair = json_integer_value(json_object_get(j, "pair"));
	c->analyses = (int)json_integer_value(json_object_get(j, "analyses"));
	c->max_runs = (int)json_integer_value(json_object_get(j, "max_runs"));
	c->looked = (int)json_integer_value(json_object_get(j, "looked"));
	c->bisection = json_is_true(json_object_get(j, "bisection"));
	c->capped = json_is_true(json_object_get(j, "capped"));
	c->series = xstrdup(rjson_get_str(j, "series"));
	c->base = xstrdup(rjson_get_str(j, "base"));
	c->head = xstrdup(rjson_get_str(j, "head"));
	open = json_object_get(j, "open");
	c->open = xcalloc(json_array_size(open) + 1, sizeof *c->open);
	json_array_foreach(open, i, o)
	{
		struct store_open_finding *f = &c->open[c->nopen];
		json_t *change = json_object_get(o, "change_pct");
		const char *kpi = rjson_get_str(o, "kpi");
		const char *kind = rjson_get_str(o, "kind");

		if (kpi == NULL || kind == NULL)
			continue;
		f->id = json_integer_value(json_object_get(o, "id"));
		f->kpi = xstrdup(kpi);
		f->f.regression = strcmp(kind, "regression") == 0;
		f->f.change_defined = json_is_number(change);
		f->f.change_pct = json_number_value(change);
		c->nopen++;
	}
	store_noise_decode(json_object_get(j, "noise"), &c->noise, &c->nnoise);
	json_decref(j);
	return c;
}

const struct store_open_finding *
store_pair_claim_open(const struct store_pair_claim *c, const char *kpi)
{
	for (size_t i = 0; i < c->nopen; i++)
		if (strcmp(c->open[i].kpi, kpi) == 0)
			return &c->open[i];
	return NULL;
}

static void
read_pair_claim(const struct db_result *r, const struct problem *p, store_fn cb,
		void *arg)
{
	void *c;
	struct problem *q = store_decode(r, p, pair_claim_decode, &c);

	((store_pair_claim_cb)cb)(c, q, arg);
	store_decoded_free(q, p);
}

static const struct store_stmt pair_next = {"SELECT robot_pair_next($1::int)",
					    "i", read_pair_claim, false};

void
store_pair_next(struct store *s, int seconds, store_pair_claim_cb cb, void *arg)
{
	store_call(s, &pair_next, STORE_FN(cb), arg, STORE_INT(seconds));
}

static const struct store_stmt pair_done = {
	"SELECT robot_pair_done($1::bigint, $2::int, $3, $4, $5::int, "
	"$6::json, $7, $8::int, $9::json, $10::json, $11, $12::int)",
	"lissississsi", store_read_text, false};

void
store_pair_done(struct store *s, const struct store_pair_done *d,
		store_text_cb cb, void *arg)
{
	store_call(s, &pair_done, STORE_FN(cb), arg, STORE_LONG(d->pair),
		   STORE_INT(d->analyses), STORE_TEXT(d->verdict),
		   STORE_TEXT(d->kpi), STORE_INT(d->runs),
		   STORE_TEXT(d->comparison), STORE_TEXT(d->table),
		   STORE_INT(d->more), STORE_TEXT(d->kpis),
		   STORE_TEXT(d->findings), STORE_TEXT(d->note),
		   STORE_INT(d->looked));
}

static const struct store_stmt pair_history = {
	"SELECT robot_pair_history($1::bigint, $2::int)", "li", store_read_text,
	false, .shared = true};

void
store_pair_history(struct store *s, long long pair, int limit, store_text_cb cb,
		   void *arg)
{
	store_call(s, &pair_history, STORE_FN(cb), arg, STORE_LONG(pair),
		   STORE_INT(limit));
}

static const struct view_field kpi_history_fields[] = {
	VIEW_F(store_kpi_history, "kpi", VIEW_STR, kpi),
	VIEW_F(store_kpi_history, "commits", VIEW_JSON, commits),
};
static const struct view_type kpi_history =
	VIEW_TYPE("history", struct store_kpi_history, kpi_history_fields);
static const struct view_field pair_histories_fields[] = {
	VIEW_F(store_pair_histories, "pair", VIEW_INT, pair),
	VIEW_F(store_pair_histories, "series", VIEW_STR, series),
	VIEW_F(store_pair_histories, "tree", VIEW_STR, tree),
	VIEW_F(store_pair_histories, "branch", VIEW_STR, branch),
	VIEW_F(store_pair_histories, "head", VIEW_STR, head),
	VIEW_A(store_pair_histories, "histories", kpi_history, histories,
	       nhistories),
};
const struct view_type store_pair_histories_view = VIEW_TYPE(
	"pair histories", struct store_pair_histories, pair_histories_fields);

static const struct view_field change_points_fields[] = {
	VIEW_F(store_change_points, "new", VIEW_INT, made),
	VIEW_F(store_change_points, "moved", VIEW_INT, moved),
	VIEW_F(store_change_points, "updated", VIEW_INT, updated),
	VIEW_F(store_change_points, "dropped", VIEW_INT, dropped),
};
static const struct view_type change_points_view = VIEW_TYPE(
	"change points", struct store_change_points, change_points_fields);

static void
read_change_points(const struct db_result *r, const struct problem *p,
		   store_fn cb, void *arg)
{
	store_read_view(r, p, &change_points_view, cb, arg);
}

static const struct store_stmt change_points = {
	"SELECT robot_change_points_record($1::json)", "s", read_change_points,
	false};

void
store_change_points(struct store *s, const char *json,
		    store_change_points_cb cb, void *arg)
{
	store_call(s, &change_points, STORE_FN(cb), arg, STORE_TEXT(json));
}

struct store_values {
	struct db_result *rows;
};

static void
read_values(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	struct store_values *v = NULL;

	if (p == NULL) {
		v = xcalloc(1, sizeof *v);
		v->rows = db_result_take(r);
	}
	((store_values_cb)cb)(v, p, arg);
}

/* Row 0: the head's JSON; then a row per side and metric: 1 for the
 * base's, 2 for the head's, by metric, with the job of each value. */
static const struct store_stmt pair_columns = {
	"SELECT 0, robot_pair_head($1, $2, $3)::text, NULL::float8[], "
	"NULL::int8[] UNION ALL SELECT CASE WHEN commit = $2 THEN 1 ELSE 2 "
	"END, metric, vals, jobs FROM metric_values WHERE series = $1 AND "
	"commit IN ($2, $3) ORDER BY 1, 2",
	"sss", read_values, true};

static const struct store_stmt pair_size = {
	"SELECT coalesce(sum(n), 0)::text FROM metric_values WHERE series = "
	"$1 AND commit IN ($2, $3)",
	"sss", store_read_text, false, .shared = true};

void
store_pair_size(struct store *s, const char *series, const char *base,
		const char *head, store_text_cb cb, void *arg)
{
	store_call(s, &pair_size, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(base), STORE_TEXT(head));
}

void
store_pair_columns(struct store *s, const char *series, const char *base,
		   const char *head, store_values_cb cb, void *arg)
{
	store_call(s, &pair_columns, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(base), STORE_TEXT(head));
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A float8[]'s send format: ndim, has-nulls, element type, then each
 * dimension's size and lower bound, then each element's length (-1 for
 * NULL) and its 8 big-endian bytes.  Appends the finite ones to out;
 * false when it is not one. */
static bool
float8_array(const unsigned char *p, size_t len, double *out, size_t *n)
{
	const unsigned char *end = p + len;
	uint32_t ndim, count;

	*n = 0;
	if (len < 12)
		return false;
	ndim = be32(p);
	if (ndim == 0)
		return true;
	if (ndim != 1 || len < 20)
		return false;
	count = be32(p + 12);
	p += 20;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t bits = 0;
		double d;

		if (end - p < 4)
			return false;
		if (be32(p) == 0xffffffffu) {
			p += 4;
			continue;
		}
		if (be32(p) != 8 || end - p < 12)
			return false;
		for (int k = 0; k < 8; k++)
			bits = bits << 8 | p[4 + k];
		memcpy(&d, &bits, sizeof d);
		if (isfinite(d))
			out[(*n)++] = d;
		p += 12;
	}
	return true;
}

/* An int8[] or float8[] in send format, every element in its place:
 * each as its 8 bytes (float8s as doubles, int8s as long longs), a
 * NULL as NAN or -1.  At most max; false when it is not one. */
static bool
array8_at(const unsigned char *p, size_t len, bool ints, void *out, size_t max,
	  size_t *n)
{
	const unsigned char *end = p + len;
	uint32_t count;

	*n = 0;
	if (p == NULL || len < 12)
		return p == NULL || len == 0;
	if (be32(p) == 0)
		return true;
	if (be32(p) != 1 || len < 20)
		return false;
	count = be32(p + 12);
	p += 20;
	for (uint32_t i = 0; i < count && *n < max; i++) {
		uint64_t bits = 0;

		if (end - p < 4)
			return false;
		if (be32(p) == 0xffffffffu) {
			p += 4;
			if (ints)
				((long long *)out)[(*n)++] = -1;
			else
				((double *)out)[(*n)++] = NAN;
			continue;
		}
		if (be32(p) != 8 || end - p < 12)
			return false;
		for (int k = 0; k < 8; k++)
			bits = bits << 8 | p[4 + k];
		if (ints)
			((long long *)out)[(*n)++] = (long long)bits;
		else
			memcpy((double *)out + (*n)++, &bits, sizeof(double));
		p += 12;
	}
	return true;
}

/* The elements a float8[] in send format says it has. */
static size_t
float8_count(const unsigned char *p, size_t len)
{
	return len >= 20 && be32(p) == 1 ? be32(p + 12) : 0;
}

void
store_pair_head_free(struct store_pair_head *h)
{
	if (h == NULL)
		return;
	free(h->series);
	free(h->base);
	free(h->head);
	json_decref(h->job);
	free(h->rounds);
	for (size_t i = 0; i < h->ncanary; i++)
		free(h->canary_boxes[i]);
	free(h->canary_boxes);
	free(h->canary_jobs);
	free(h);
}

static void
side_runs(json_t *j, struct store_side_runs *r)
{
	r->asked = (int)json_integer_value(json_object_get(j, "asked"));
	r->ok = (int)json_integer_value(json_object_get(j, "ok"));
	r->failed = (int)json_integer_value(json_object_get(j, "failed"));
}

/* robot_pair_head()'s JSON, decoded; NULL when it is not one. */
static struct store_pair_head *
pair_head_decode(const char *text, size_t len)
{
	json_t *j = rjson_loadb(text, len, NULL), *rounds, *r;
	struct store_pair_head *h;
	size_t i;

	if (j == NULL || rjson_get_str(j, "series") == NULL ||
	    rjson_get_str(j, "base") == NULL ||
	    rjson_get_str(j, "head") == NULL) {
		json_decref(j);
		return NULL;
	}
	h = xcalloc(1, sizeof *h);
	h->series = xstrdup(rjson_get_str(j, "series"));
	h->base = xstrdup(rjson_get_str(j, "base"));
	h->head = xstrdup(rjson_get_str(j, "head"));
	h->job = json_incref(json_object_get(j, "job"));
	side_runs(json_object_get(j, "base_runs"), &h->base_runs);
	side_runs(json_object_get(j, "head_runs"), &h->head_runs);
	rounds = json_object_get(j, "rounds");
	h->rounds = xcalloc(json_array_size(rounds) + 1, sizeof *h->rounds);
	json_array_foreach(rounds, i, r)
	{
		h->rounds[h->nrounds][0] =
			json_integer_value(json_array_get(r, 0));
		h->rounds[h->nrounds][1] =
			json_integer_value(json_array_get(r, 1));
		h->nrounds++;
	}
	rounds = json_object_get(j, "canary");
	h->canary_jobs =
		xcalloc(json_array_size(rounds) + 1, sizeof *h->canary_jobs);
	h->canary_boxes =
		xcalloc(json_array_size(rounds) + 1, sizeof *h->canary_boxes);
	json_array_foreach(rounds, i, r)
	{
		const char *box = json_string_value(json_array_get(r, 1));

		if (box == NULL || !json_is_integer(json_array_get(r, 0)))
			continue;
		h->canary_jobs[h->ncanary] =
			json_integer_value(json_array_get(r, 0));
		h->canary_boxes[h->ncanary] = xstrdup(box);
		h->ncanary++;
	}
	json_decref(j);
	return h;
}

/* The column of metric name among cols[0..*n), a new one (*n grows)
 * if it has none yet; index maps names to columns. */
static struct comparison_column *
column_named(struct strmap *index, struct comparison_column *cols, size_t *n,
	     const char *name)
{
	size_t k;

	if (!strmap_get(index, name, &k)) {
		k = (*n)++;
		strmap_put(index, name, k);
		cols[k] = (struct comparison_column){name, NULL, 0, NULL, 0};
	}
	return &cols[k];
}

/* The values of a side's row at the rounds' runs (side 0: the base's),
 * each in its round's place, NAN where the run gave none; false when the
 * row cannot be read.  tmp has room for the row's values and jobs. */
static bool
row_at_rounds(const struct db_result *r, size_t row, int side,
	      const struct store_pair_head *in, double *out, double *vals,
	      long long *jobs)
{
	size_t nv, nj;

	if (!array8_at((const unsigned char *)db_value(r, row, 2),
		       db_length(r, row, 2), false, vals, SIZE_MAX, &nv) ||
	    !array8_at((const unsigned char *)db_value(r, row, 3),
		       db_length(r, row, 3), true, jobs, nv, &nj))
		return false;
	for (size_t k = 0; k < in->nrounds; k++) {
		out[k] = NAN;
		for (size_t i = 0; i < nj; i++)
			if (jobs[i] == in->rounds[k][side]) {
				out[k] = vals[i];
				break;
			}
	}
	return true;
}

/* store_values_read() for a pair with rounds: each column holds the
 * values of the rounds in which both runs gave a finite one, base[i]
 * and head[i] of one round. */
static bool
values_of_rounds(const struct db_result *r, struct store_pair_head *in,
		 struct comparison_column **cols, size_t *ncols, double **block)
{
	size_t rows = db_rows(r), most = 0, n = 0;
	double *vals;
	long long *jobs;
	struct strmap *index;
	bool ok = true;

	for (size_t i = 1; i < rows; i++) {
		size_t c =
			float8_count((const unsigned char *)db_value(r, i, 2),
				     db_length(r, i, 2));

		most = c > most ? c : most;
	}
	vals = xreallocarray(NULL, most + 1, sizeof *vals);
	jobs = xreallocarray(NULL, most + 1, sizeof *jobs);
	*block = xreallocarray(NULL, (rows + 1) * in->nrounds + 1,
			       sizeof **block);
	*cols = xcalloc(rows, sizeof **cols);
	index = strmap_new(rows);
	for (size_t i = 1; i < rows && ok; i++) {
		uint32_t side = be32((const unsigned char *)db_value(r, i, 0));
		const char *name = db_value(r, i, 1);
		double *at = *block + (i - 1) * in->nrounds;
		struct comparison_column *c;

		if (name == NULL || (side != 1 && side != 2) ||
		    !row_at_rounds(r, i, side - 1, in, at, vals, jobs)) {
			ok = false;
			break;
		}
		c = column_named(index, *cols, &n, name);
		if (side == 1 && c->base == NULL)
			c->base = at;
		else if (side == 2 && c->head == NULL)
			c->head = at;
	}
	strmap_free(index);
	free(vals);
	free(jobs);
	if (!ok)
		return false;
	for (size_t k = 0; k < n; k++) {
		struct comparison_column *c = &(*cols)[k];
		double *b = (double *)c->base, *h = (double *)c->head;
		size_t nb = 0, nh = 0;

		/* A round counts where both runs gave a value; a side alone
		 * keeps its own (the comparison notes it). */
		for (size_t i = 0; i < in->nrounds; i++) {
			bool fb = b != NULL && isfinite(b[i]);
			bool fh = h != NULL && isfinite(h[i]);

			if (fb && (fh || h == NULL))
				b[nb++] = b[i];
			if (fh && (fb || b == NULL))
				h[nh++] = h[i];
		}
		c->nb = nb;
		c->nh = nh;
		if (c->base == NULL)
			c->base = *block;
		if (c->head == NULL)
			c->head = *block;
	}
	*ncols = n;
	return true;
}

size_t
store_values_canary(const struct store_values *v,
		    const struct store_pair_head *in, const char *metric,
		    struct noise_obs *out, size_t max)
{
	const struct db_result *r = v->rows;
	size_t rows = db_rows(r), nv = 0, nj = 0, nout = 0;
	double *vals = NULL, *x;
	long long *jobs = NULL;
	bool *done;

	if (in->ncanary == 0)
		return 0;
	for (size_t i = 1; i < rows && vals == NULL; i++) {
		const char *name = db_value(r, i, 1);
		size_t most;

		if (be32((const unsigned char *)db_value(r, i, 0)) != 1 ||
		    name == NULL || strcmp(name, metric) != 0)
			continue;
		most = float8_count((const unsigned char *)db_value(r, i, 2),
				    db_length(r, i, 2));
		vals = xreallocarray(NULL, most + 1, sizeof *vals);
		jobs = xreallocarray(NULL, most + 1, sizeof *jobs);
		if (!array8_at((const unsigned char *)db_value(r, i, 2),
			       db_length(r, i, 2), false, vals, SIZE_MAX,
			       &nv) ||
		    !array8_at((const unsigned char *)db_value(r, i, 3),
			       db_length(r, i, 3), true, jobs, nv, &nj))
			nj = 0;
	}
	if (vals == NULL) {
		free(jobs);
		return 0;
	}
	x = xcalloc(in->ncanary + 1, sizeof *x);
	done = xcalloc(in->ncanary + 1, sizeof *done);
	/* box by box: the values of its canary runs */
	for (size_t b = 0; b < in->ncanary && nout < max; b++) {
		double sum = 0, sq = 0, mean;
		size_t k = 0;
		bool positive = true;

		if (done[b])
			continue;
		for (size_t c = b; c < in->ncanary; c++) {
			if (done[c] || strcmp(in->canary_boxes[c],
					      in->canary_boxes[b]) != 0)
				continue;
			done[c] = true;
			for (size_t i = 0; i < nj; i++)
				if (jobs[i] == in->canary_jobs[c] &&
				    isfinite(vals[i])) {
					positive = positive && vals[i] > 0;
					x[k++] = positive ? log(vals[i]) : 0;
					break;
				}
		}
		if (k < 3 || !positive)
			continue;
		for (size_t i = 0; i < k; i++)
			sum += x[i];
		mean = sum / (double)k;
		for (size_t i = 0; i < k; i++)
			sq += (x[i] - mean) * (x[i] - mean);
		out[nout].var = 2 * sq / (double)(k - 1);
		out[nout].df = (double)(k - 1);
		nout++;
	}
	free(x);
	free(done);
	free(vals);
	free(jobs);
	return nout;
}

bool
store_values_read(const struct store_values *v, const char *base,
		  const char *head, struct store_pair_head **in,
		  struct comparison_column **cols, size_t *ncols,
		  double **block)
{
	const struct db_result *r = v->rows;
	size_t rows = db_rows(r), total = 0, used = 0, n = 0;
	bool same = strcmp(base, head) == 0;
	struct strmap *index;

	*in = NULL;
	*cols = NULL;
	*block = NULL;
	*ncols = 0;
	if (rows == 0 || be32((const unsigned char *)db_value(r, 0, 0)) != 0)
		return false;
	*in = pair_head_decode(db_value(r, 0, 1), db_length(r, 0, 1));
	if (*in == NULL)
		return false;
	if ((*in)->nrounds > 0 && !same)
		return values_of_rounds(r, *in, cols, ncols, block);
	for (size_t i = 1; i < rows; i++)
		total += float8_count((const unsigned char *)db_value(r, i, 2),
				      db_length(r, i, 2));
	/* room for the head's copy of the base's when they are one */
	*block = xreallocarray(NULL, 2 * total + 1, sizeof **block);
	*cols = xcalloc(rows, sizeof **cols);
	index = strmap_new(rows);
	for (size_t i = 1; i < rows; i++) {
		uint32_t side = be32((const unsigned char *)db_value(r, i, 0));
		const char *name = db_value(r, i, 1);
		struct comparison_column *c;
		double *vals = *block + used;
		size_t got;

		if (name == NULL ||
		    !float8_array((const unsigned char *)db_value(r, i, 2),
				  db_length(r, i, 2), vals, &got)) {
			strmap_free(index);
			return false;
		}
		used += got;
		c = column_named(index, *cols, &n, name);
		if (side == 1 && c->base == NULL) {
			c->base = vals;
			c->nb = got;
		} else if (side == 2 && c->head == NULL) {
			c->head = vals;
			c->nh = got;
		}
	}
	strmap_free(index);
	for (size_t k = 0; k < n; k++) {
		struct comparison_column *c = &(*cols)[k];

		if (same && c->head == NULL && c->base != NULL) {
			memcpy(*block + used, c->base, c->nb * sizeof(double));
			c->head = *block + used;
			c->nh = c->nb;
			used += c->nb;
		}
		if (c->base == NULL)
			c->base = *block;
		if (c->head == NULL)
			c->head = *block;
	}
	*ncols = n;
	return true;
}

void
store_values_free(struct store_values *v)
{
	if (v == NULL)
		return;
	db_result_free(v->rows);
	free(v);
}

static const struct store_stmt pair = {
	"SELECT json_build_object('pair', id, 'state', state, "
	"'verdict', verdict, 'kpi', kpi, 'runs', runs, "
	"'comparison', comparison, 'table', table_text) FROM pairs "
	"WHERE series = $1 AND base = $2 AND head = $3 AND "
	"comparison IS NOT NULL",
	"sss", store_read_text, false, .shared = true};

void
store_pair(struct store *s, const char *series, const char *base,
	   const char *head, store_text_cb cb, void *arg)
{
	store_call(s, &pair, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(base), STORE_TEXT(head));
}

static const struct store_stmt side_values = {
	"SELECT robot_compare_extras($1, $2, $3, ARRAY(SELECT "
	"json_array_elements_text($4::json)))",
	"ssss", store_read_text, false, .shared = true};

void
store_side_values(struct store *s, const char *series, const char *base,
		  const char *head, const char *metrics, store_text_cb cb,
		  void *arg)
{
	store_call(s, &side_values, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(base), STORE_TEXT(head), STORE_TEXT(metrics));
}

static const struct store_stmt regressions = {
	"SELECT json_build_object('regressions', "
	"coalesce(json_agg(x ORDER BY x.id DESC), '[]')) FROM "
	"(SELECT id, kind, found_by, tree, branch, commit, base, culprit, "
	"series, kpi, change_pct, p_value, runs, base_runs, head_runs, "
	"state, triage, triage_reason, assignee, duplicate_of, fix_claimed, "
	"bug_url, tags, muted_by, last_head, fixed_by, created, updated "
	"FROM regressions WHERE ($1::text IS NULL "
	"OR tree = $1) AND ($2::text IS NULL OR state = $2) AND "
	"($3::timestamptz IS NULL OR updated >= $3::timestamptz) "
	"AND ($4::text IS NULL OR kind = $4 OR found_by = $4) "
	"AND ($6::text IS NULL OR triage = $6) "
	"ORDER BY id DESC LIMIT $5::int) x",
	"ssssls", store_read_text, false, .shared = true};

void
store_regressions(struct store *s, const struct store_regressions_filter *f,
		  store_text_cb cb, void *arg)
{
	store_call(s, &regressions, STORE_FN(cb), arg, STORE_TEXT(f->tree),
		   STORE_TEXT(f->state), STORE_TEXT(f->since),
		   STORE_TEXT(f->kind), STORE_LONG((long long)f->limit),
		   STORE_TEXT(f->triage));
}

static const struct store_stmt regression_set = {
	"SELECT robot_regression_set($1::bigint, $2, $3, $4::boolean)", "lssb",
	store_read_text, false};

void
store_regression_set(struct store *s, long long id, const char *state,
		     const char *by, bool admin, store_text_cb cb, void *arg)
{
	store_call(s, &regression_set, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(state), STORE_TEXT(by), STORE_BOOL(admin));
}

static const struct store_stmt regression_triage = {
	"SELECT robot_regression_triage($1::bigint, $2::json, $3, $4, $5, "
	"$6::int)",
	"lssssi", store_read_text, false};

void
store_regression_triage(struct store *s, long long id, const char *cmd,
			const char *by, const char *kind, const char *how,
			int box_limit, store_text_cb cb, void *arg)
{
	store_call(s, &regression_triage, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(cmd), STORE_TEXT(by), STORE_TEXT(kind),
		   STORE_TEXT(how), STORE_INT(box_limit));
}

static const struct store_stmt mute = {"SELECT robot_mute($1::json, $2, $3)",
				       "sss", store_read_text, false};

void
store_mute(struct store *s, const char *p, const char *by, const char *how,
	   store_text_cb cb, void *arg)
{
	store_call(s, &mute, STORE_FN(cb), arg, STORE_TEXT(p), STORE_TEXT(by),
		   STORE_TEXT(how));
}

static const struct store_stmt unmute = {"SELECT robot_unmute($1::bigint)", "l",
					 store_read_text, false};

void
store_unmute(struct store *s, long long id, store_text_cb cb, void *arg)
{
	store_call(s, &unmute, STORE_FN(cb), arg, STORE_LONG(id));
}

static const struct store_stmt mutes = {"SELECT robot_mutes()", "",
					store_read_text, false, .shared = true};

void
store_mutes(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &mutes, STORE_FN(cb), arg);
}
