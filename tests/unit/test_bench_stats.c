// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-bench's statistics (tools/ktrepl-bench/stats.c): the median's
 * interval, and the paired comparison whose false-positive rate the man
 * page states. The rate is measured here over simulated A/A runs laid
 * out in time as the engine runs them (ABBA), on a machine whose speed
 * wanders from run to run (a slowdown that lasts a while: AR(1) in the
 * log of the time) with skewed noise on each run, the way an emulated
 * machine behaves; and its power on a +10% effect.
 */
#include <math.h>

#include "tap.h"
#include "../../tools/ktrepl-bench/stats.c"

#define TRIALS 2000
#define MAX_ROUNDS 24

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: the same stream on every machine */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
}

static double skewed_noise(void)
{
	/* interrupts and misses only add time: exponential, mean 1% */
	return -0.01 * log(1 - uniform());
}

static double gaussian(void)
{
	return sqrt(-2 * log(1 - uniform())) * cos(2 * M_PI * uniform());
}

/*
 * One simulated run of rounds rounds, in the engine's order: off then on
 * in even rounds, on then off in odd ones. The machine's slowness is an
 * AR(1) process over consecutive runs (phi 0.9, about 11% standard
 * deviation), and the after arm takes effect_pct longer.
 */
static void simulate(double *before, double *after, size_t rounds,
		     double effect_pct)
{
	const double phi = 0.9, sigma = 0.05;
	double slow = gaussian() * sigma / sqrt(1 - phi * phi);
	size_t k;
	int arm;

	for (k = 0; k < rounds; k++) {
		for (arm = 0; arm < 2; arm++) {
			bool on = k % 2 ? arm == 0 : arm == 1;
			double t;

			slow = phi * slow + sigma * gaussian();
			t = 1e6 * exp(slow) * (1 + skewed_noise());
			if (on)
				after[k] = t * (1 + effect_pct / 100);
			else
				before[k] = t;
		}
	}
}

static double flagged_pct(size_t rounds, double effect_pct)
{
	double before[MAX_ROUNDS], after[MAX_ROUNDS];
	size_t t, flagged = 0;

	for (t = 0; t < TRIALS; t++) {
		struct bench_node_result r = { 0 };

		simulate(before, after, rounds, effect_pct);
		bench_compare(&r, before, after, rounds);
		flagged += r.significant;
	}
	return 100.0 * flagged / TRIALS;
}

static void test_median_ci(void)
{
	const double x[] = { 5, 1, 4, 2, 6, 3 };
	struct bench_ci ci;

	bench_median_ci(x, 6, &ci);
	tap_ok(ci.valid && ci.median == 3.5 && ci.lo == 1 && ci.hi == 6,
	       "6 samples: median 3.5, interval from the smallest to the largest");
	tap_ok(fabs(ci.coverage - (1 - 2.0 / 64)) < 1e-9,
	       "6 samples: coverage 1 - 2/64 (got %.4f)", ci.coverage);
	bench_median_ci(x, 5, &ci);
	tap_ok(!ci.valid, "5 samples bound no 95%% interval");
}

static void test_compare_exact(void)
{
	/* rounds whose speeds differ by 2x: only the pairing sees +8..+12% */
	const double before[] = { 100, 200, 150, 120, 180, 90, 110, 170, 130 };
	double after[9], same[9];
	struct bench_node_result r = { 0 };
	size_t k;

	for (k = 0; k < 9; k++) {
		after[k] = before[k] * (k % 2 ? 1.12 : 1.08);
		same[k] = before[k];
	}
	bench_compare(&r, before, after, 9);
	tap_ok(r.significant && r.diff_lo_pct >= 7.99 &&
		       r.diff_hi_pct <= 12.01,
	       "+8%% and +12%% in every round of 9: significant, interval within [+8, +12] (got %+.2f [%+.2f, %+.2f])",
	       r.diff_pct, r.diff_lo_pct, r.diff_hi_pct);
	tap_ok(fabs(r.diff_pct - 8) < 1e-9,
	       "the figure is the median of the rounds' differences, +8 (got %+.2f)",
	       r.diff_pct);
	bench_compare(&r, before, same, 9);
	tap_ok(!r.significant && r.diff_pct == 0,
	       "identical arms: no difference, not significant");
	bench_compare(&r, before, after, 5);
	tap_ok(!r.significant && isinf(r.ci_pct),
	       "5 rounds: no interval, nothing significant");
	after[3] = before[3] * 0.9;
	bench_compare(&r, before, after, 9);
	tap_ok(r.significant,
	       "one round of 9 the other way: still significant (its interval is the 2nd to the 8th of 9)");
	after[6] = before[6] * 0.9;
	bench_compare(&r, before, after, 9);
	tap_ok(!r.significant,
	       "two rounds of 9 the other way: not significant");
}

static void test_calibration(void)
{
	static const size_t rounds[] = { 6, 12, 24 };
	double pct;
	size_t i;

	for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		pct = flagged_pct(rounds[i], 0);
		/* 5% plus two binomial standard errors of 2000 trials */
		tap_ok(pct <= 6.0,
		       "A/A over %zu rounds of a wandering machine: at most 5%% flagged (got %.1f%% of %d)",
		       rounds[i], pct, TRIALS);
	}
	pct = flagged_pct(12, 10);
	tap_ok(pct >= 90,
	       "a +10%% effect over 12 rounds of the same machine is found in at least 90%% of runs (got %.1f%%)",
	       pct);
}

int main(void)
{
	tap_header();
	tap_plan(13);
	test_median_ci();
	test_compare_exact();
	test_calibration();
	return tap_finish();
}
