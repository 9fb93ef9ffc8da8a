/*
 * fuzz_history.c: libFuzzer target for history files, as `robot
 * changes FILE` reads them (history_load(), CSV or JSON), and the
 * change points of those accepted: in order, inside the history, their
 * segments chained, p in [0, 1].  Built with -Dfuzz=true (clang); run
 * by scripts/fuzz.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errlist el;
	struct history h;
	struct changes_options opt;
	struct change_point *cp;
	size_t n;

	errlist_init(&el);
	if (!history_load(&h, "fuzz", (const char *)data, size, &el)) {
		if (el.nerrors == 0 || h.n != 0)
			abort(); /* refused without a reason, or kept */
		errlist_release(&el);
		history_release(&h);
		return 0;
	}
	if (el.nerrors != 0 || h.n == 0)
		abort();
	changes_options_init(&opt);
	if (h.runs <= 2000) {
		n = changes_find(h.pts, h.n, &opt, &cp);
		for (size_t i = 0; i < n; i++) {
			const struct change_point *c = &cp[i];

			if (c->index == 0 || c->index >= h.n ||
			    c->from >= c->index || c->to <= c->index ||
			    c->to > h.n ||
			    c->from != (i > 0 ? cp[i - 1].index : 0) ||
			    c->to != (i + 1 < n ? cp[i + 1].index : h.n) ||
			    !(c->p >= 0 && c->p <= 1))
				abort();
		}
		free(cp);
	}
	errlist_release(&el);
	history_release(&h);
	return 0;
}
