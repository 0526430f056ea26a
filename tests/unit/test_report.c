// SPDX-License-Identifier: GPL-2.0
/*
 * The report printers, plain, TAP and JSON, against golden files in
 * golden/: what ktrepl-dump and crash> ktrepl print for the synthetic
 * kernel of fixture.h with a few faults. KTREPL_UPDATE_GOLDEN=1 rewrites
 * the files instead of comparing, and fails the run: read the diff
 * against the fixture before committing, then run again without it.
 */
#include <errno.h>
#include <stdlib.h>

#include "fixture.h"
#include "report.h"
#include "tap.h"

enum style { PLAIN, TAP, JSON };

static const char *const style_ext[] = { "txt", "tap", "json" };

struct capture {
	char *buf;
	size_t len;
	FILE *fp;
	struct kt_out out;
};

static int capture_begin(struct capture *c, enum style style)
{
	memset(c, 0, sizeof(*c));
	c->fp = open_memstream(&c->buf, &c->len);
	if (!c->fp)
		return -1;
	c->out.fp = c->fp;
	c->out.errfp = c->fp;
	c->out.prog = "ktrepl-dump";
	c->out.json = style == JSON;
	if (c->out.json) {
		c->out.jw = jsonw_new(c->fp, true);
		if (!c->out.jw)
			return -1;
	}
	return 0;
}

static void capture_end(struct capture *c)
{
	jsonw_destroy(&c->out.jw);
	fclose(c->fp);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!fp)
		return NULL;
	if (!fseek(fp, 0, SEEK_END) && (n = ftell(fp)) >= 0 &&
	    !fseek(fp, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len = n;
		}
	}
	fclose(fp);
	return buf;
}

/* the first differing line, for the TAP diagnostic */
static void show_first_difference(const char *want, const char *got)
{
	int line = 1;

	while (*want && *want == *got) {
		if (*want == '\n')
			line++;
		want++;
		got++;
	}
	printf("# line %d: want '%.60s'\n#          got '%.60s'\n", line, want,
	       got);
}

static void compare_golden(struct capture *c, const char *name,
			   enum style style)
{
	char path[256];
	size_t len = 0;
	char *want;
	FILE *fp;

	snprintf(path, sizeof(path), "golden/%s.%s", name, style_ext[style]);
	if (getenv("KTREPL_UPDATE_GOLDEN")) {
		fp = fopen(path, "w");
		/*
		 * A golden made from the code's own output proves nothing
		 * about that code: the run fails, and the rewritten file is
		 * for a human to read against the fixture before committing
		 */
		if (fp) {
			fwrite(c->buf, 1, c->len, fp);
			fclose(fp);
		}
		tap_ok(0, "%s rewritten (KTREPL_UPDATE_GOLDEN: review it, then rerun without)",
		       path);
		return;
	}
	want = read_file(path, &len);
	tap_ok(want && len == c->len && !memcmp(want, c->buf, len),
	       "%s %s output equals %s", name, style_ext[style], path);
	if (want && (len != c->len || memcmp(want, c->buf, len)))
		show_first_difference(want, c->buf);
	free(want);
}

static uint8_t *img;

/* the faults behind the diff and verify reports */
static void break_fixture(struct fixture *fx)
{
	uint8_t *text = fx->img + fx_replica.text_pa;
	uint64_t pte = fx_pte(&fx_replica, FX_RODATA_VA);

	memcpy(text + 0x100, (const uint8_t[]){ 0xe8, 1, 2, 3, 4 }, 5);
	text[0x180] = 0xcc;
	text[0x1234] ^= 0x10;
	fx_put(fx, pte, fx_get(fx, pte) & ~FX_NX);
}

struct diff_print {
	struct capture *c;
	const struct kt_state *st;
	unsigned int ranges;
};

static int print_diff(const struct kt_diff *d, void *arg)
{
	struct diff_print *dp = arg;

	kt_report_diff(&dp->c->out, dp->st, d);
	dp->ranges++;
	return 0;
}

struct verify_print {
	struct capture *c;
	const struct kt_state *st;
	bool tap;
};

static int print_violation(const struct kt_violation *v, void *arg)
{
	struct verify_print *vp = arg;

	kt_report_violation(&vp->c->out, vp->st, v, vp->tap);
	return 0;
}

static void report_summary(struct fixture *fx, enum style style)
{
	struct capture c;

	if (capture_begin(&c, style))
		return;
	kt_report_summary(&c.out, &fx->st);
	capture_end(&c);
	compare_golden(&c, "summary", style);
	free(c.buf);
}

static void report_diff(struct fixture *fx, enum style style)
{
	struct diff_print dp;
	struct kt_err err;
	struct capture c;
	uint64_t compared = 0;

	if (capture_begin(&c, style))
		return;
	dp = (struct diff_print){ &c, &fx->st, 0 };
	kt_report_diff_begin(&c.out);
	kt_err_clear(&err);
	kt_diff_run(&fx->t, NULL, print_diff, &dp, &compared, &err);
	kt_report_diff_end(&c.out, dp.ranges, 0, compared);
	capture_end(&c);
	compare_golden(&c, "diff", style);
	free(c.buf);
}

static void report_verify(struct fixture *fx, enum style style)
{
	struct kt_verify_stats stats;
	struct verify_print vp;
	struct kt_err err;
	struct capture c;

	if (capture_begin(&c, style))
		return;
	vp = (struct verify_print){ &c, &fx->st, style == TAP };
	kt_report_verify_begin(&c.out, vp.tap);
	kt_err_clear(&err);
	if (kt_verify_run(&fx->t, print_violation, &vp, &stats, &err))
		kt_report_abort(&c.out, err.msg);
	else
		kt_report_verify_end(&c.out, &stats, vp.tap);
	capture_end(&c);
	compare_golden(&c, "verify", style);
	free(c.buf);
}

/*
 * A descriptor that left two modules out, and their copies in node 1's
 * tables: "not-covered", no violation (and a summary that says so).
 */
static void report_not_covered(enum style style)
{
	struct kt_verify_stats stats;
	struct verify_print vp;
	struct fixture fx;
	struct kt_err err;
	struct capture c;

	fx_init(&fx, img);
	fx_unlisted_modules(&fx);
	fx.st.modules_incomplete = true;
	fx.st.modules_omitted = 2;
	if (fx_open(&fx) || capture_begin(&c, style)) {
		tap_ok(0, "not-covered: the fixture opens");
		fx_close(&fx);
		return;
	}
	vp = (struct verify_print){ &c, &fx.st, style == TAP };
	if (style == PLAIN)	/* JSON: one value per file */
		kt_report_summary(&c.out, &fx.st);
	kt_report_verify_begin(&c.out, vp.tap);
	kt_err_clear(&err);
	if (kt_verify_run(&fx.t, print_violation, &vp, &stats, &err))
		kt_report_abort(&c.out, err.msg);
	else
		kt_report_verify_end(&c.out, &stats, vp.tap);
	capture_end(&c);
	compare_golden(&c, "verify-not-covered", style);
	free(c.buf);
	fx_close(&fx);
}

static void report_abort(enum style style)
{
	struct capture c;

	if (capture_begin(&c, style))
		return;
	kt_report_verify_begin(&c.out, false);
	kt_report_abort(&c.out,
			"node 1 root: physical 0x401000+4096 is not in the dump");
	capture_end(&c);
	compare_golden(&c, "verify-abort", style);
	free(c.buf);
}

int main(void)
{
	struct fixture fx;

	img = calloc(1, FX_IMG_SIZE);
	if (!img)
		return 1;
	tap_header();
	tap_plan(12);
	fx_init(&fx, img);
	break_fixture(&fx);
	if (fx_open(&fx)) {
		tap_ok(0, "the fixture opens");
		return tap_finish();
	}
	report_summary(&fx, PLAIN);
	report_summary(&fx, JSON);
	report_diff(&fx, PLAIN);
	report_diff(&fx, JSON);
	report_verify(&fx, PLAIN);
	report_verify(&fx, TAP);
	report_verify(&fx, JSON);
	report_abort(PLAIN);
	report_abort(JSON);
	fx_close(&fx);
	report_not_covered(PLAIN);
	report_not_covered(TAP);
	report_not_covered(JSON);
	free(img);
	return tap_finish();
}
