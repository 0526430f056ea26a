// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics, stated in ktrepl-bench(8): a run's figure is the median
 * of its samples, with a distribution-free 95% confidence interval from
 * order statistics. Timings are skewed (interrupts, cache and TLB misses
 * only ever add time), so no normal approximation is assumed: for n
 * samples the number below the true median is Binomial(n, 1/2), and
 * [x(k), x(n+1-k)] covers the median with probability
 * 1 - 2 P(B <= k-1); k is the largest with that at least 95%.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(B <= j) for B ~ Binomial(n, 1/2) */
static double binom_half_cdf(size_t n, size_t j)
{
	double sum = 0;
	size_t i;

	for (i = 0; i <= j && i <= n; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) -
			   lgamma(n - i + 1.0) - n * log(2.0));
	return sum;
}

void bench_median_ci(const double *x, size_t n, struct bench_ci *ci)
{
	double *s;
	size_t k;

	memset(ci, 0, sizeof(*ci));
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	ci->median = (s[(n - 1) / 2] + s[n / 2]) / 2;
	ci->lo = s[0];
	ci->hi = s[n - 1];
	/* k counts from 1: the k-th smallest and the k-th largest */
	for (k = 1; 2 * k <= n && binom_half_cdf(n, k - 1) <= 0.025; k++)
		;
	k--;
	if (k >= 1) {
		ci->valid = true;
		ci->lo = s[k - 1];
		ci->hi = s[n - k];
		ci->coverage = 1 - 2 * binom_half_cdf(n, k - 1);
	}
	free(s);
}

double bench_ci_half_pct(const struct bench_ci *ci)
{
	double up = ci->hi - ci->median, down = ci->median - ci->lo;

	if (!ci->valid || ci->median <= 0)
		return INFINITY;
	return 100 * (up > down ? up : down) / ci->median;
}

/*
 * The difference is judged on the rounds' pairs, not on the two arms'
 * intervals. Each round runs both arms of a node, alternating their
 * order (ABBA), so a drift of the machine or a vCPU slowed for a while
 * moves both halves of a round alike; the runs of one arm are not
 * independent of each other (an A/A control once showed +33.7% with
 * disjoint intervals under emulation). The figure is the median of the
 * paired differences (after_k - before_k) / before_k, its interval the
 * order-statistics one above over those pairs, and the difference is
 * significant when that interval excludes zero: a sign test, whose
 * false-positive rate is at most 5% (3.1% for 6 rounds) for pairs
 * independent of each other, whatever the drift between rounds.
 */
void bench_compare(struct bench_node_result *r, const double *before,
		   const double *after, size_t n)
{
	struct bench_ci d;
	double *pct;
	size_t k;

	r->significant = false;
	r->diff_pct = r->diff_lo_pct = r->diff_hi_pct = 0;
	r->ci_pct = INFINITY;
	if (!n)
		return;
	pct = malloc(n * sizeof(*pct));
	if (!pct)
		return;
	for (k = 0; k < n; k++) {
		if (before[k] <= 0) {
			free(pct);
			return;
		}
		pct[k] = 100 * (after[k] - before[k]) / before[k];
	}
	bench_median_ci(pct, n, &d);
	free(pct);
	r->diff_pct = d.median;
	if (!d.valid)
		return;
	r->diff_lo_pct = d.lo;
	r->diff_hi_pct = d.hi;
	r->ci_pct = fmax(d.hi - d.median, d.median - d.lo);
	r->significant = d.lo > 0 || d.hi < 0;
}
