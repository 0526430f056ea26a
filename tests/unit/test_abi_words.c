// SPDX-License-Identifier: GPL-2.0
/*
 * The reason words (kernel/include/ktrepl_abi.h's enum ktrepl_reason):
 * what the module publishes as summary's activation_reason= and
 * failsafe_reason=, and what users, scripts and the guest tests match.
 * Each must be documented, as `word`, in docs/abi.md's row of the field
 * it is published in; each is spelled once, in that header, so no two
 * entries share a word and no module source spells one as a literal of
 * its own; each is a word summary can print (not empty, no blank), and
 * failsafe_reason's fit the vmcore descriptor's failsafe_reason[] whole.
 * The node roles (ktrepl_role_str()) are documented in the role row too.
 */
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_path.h"
#include "ktrepl_abi.h"
#include "ktrepl_desc.h"
#include "tap.h"

#define NWORDS (KTREPL_REASON_NR - 1)

/* the whole of path, NUL-terminated, or NULL */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, got;
	char buf[4096];

	if (!f)
		return NULL;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		char *more = realloc(text, len + got + 1);

		if (!more) {
			free(text);
			fclose(f);
			return NULL;
		}
		text = more;
		memcpy(text + len, buf, got);
		len += got;
	}
	fclose(f);
	if (!text)
		text = calloc(1, 1);
	else
		text[len] = '\0';
	return text;
}

/*
 * The summary table's row of field ("| `field` | ..." up to its line's
 * end), copied, or NULL: only that row says what its words mean; the
 * same words elsewhere (mirror_missed is also a counter) do not count.
 */
static char *doc_row(const char *doc, const char *field)
{
	char head[64];
	const char *p, *end;
	size_t n = (size_t)snprintf(head, sizeof(head), "| `%s` |", field);

	for (p = doc; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, head, n))
			continue;
		end = strchr(p, '\n');
		return strndup(p, end ? (size_t)(end - p) : strlen(p));
	}
	return NULL;
}

/* does row hold `word`, backquotes and all? */
static bool row_has(const char *row, const char *word)
{
	char quoted[128];

	snprintf(quoted, sizeof(quoted), "`%s`", word);
	return row && strstr(row, quoted);
}

/* a word summary prints as it is: lower case, digits and '_' only */
static bool is_word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/*
 * Blank out text's comments, in place: a comment may quote a word (as
 * ktrepl_provider.h's does), only code must take it from the table.
 */
static void strip_comments(char *text)
{
	char *p = text, quote = 0;

	while (*p) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			p++;
		} else if (*p == '"' || *p == '\'') {
			quote = *p++;
		} else if (p[0] == '/' && p[1] == '*') {
			char *end = strstr(p + 2, "*/");
			char *stop = end ? end + 2 : p + strlen(p);

			memset(p, ' ', stop - p);
			p = stop;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
		} else {
			p++;
		}
	}
}

/* the first module source to spell a word as "word" in its code */
static char spelled_at[PATH_MAX + 64];

static int scan_source(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	size_t len = strlen(path);
	char *text;
	int r;

	if (type != FTW_F || len < 2 || path[len - 2] != '.' ||
	    (path[len - 1] != 'c' && path[len - 1] != 'h'))
		return 0;
	/* the ABI's own tables: ktrepl_summary.h has mirror_missed, a field */
	if (strstr(path, "/kernel/include/"))
		return 0;
	text = slurp(path);
	if (!text) {
		snprintf(spelled_at, sizeof(spelled_at), "%s: unreadable",
			 path);
		return 1;
	}
	strip_comments(text);
	for (r = 1; r < KTREPL_REASON_NR; r++) {
		char quoted[128];

		snprintf(quoted, sizeof(quoted), "\"%s\"",
			 ktrepl_reason_name(r) ?: "");
		if (ktrepl_reason_name(r) && strstr(text, quoted)) {
			snprintf(spelled_at, sizeof(spelled_at), "%s: %s",
				 path, quoted);
			break;
		}
	}
	free(text);
	return spelled_at[0] != '\0';
}

int main(void)
{
	const char *path = fixture_path("../../../docs/abi.md");
	const char *kernel = fixture_path("../../../kernel");
	char *doc, *act_row = NULL, *fs_row = NULL, *role_row = NULL;
	char bad[256] = "";
	size_t desc_max = KTREPL_DESC_SIZE(failsafe_reason) - 1;
	int r, s;

	tap_header();
	tap_plan(9 + NWORDS + KTREPL_DESC_ROLE_NR);

	doc = slurp(path);
	tap_ok(doc, "docs/abi.md at %s", path);
	if (doc) {
		act_row = doc_row(doc, "activation_reason");
		fs_row = doc_row(doc, "failsafe_reason");
		role_row = doc_row(doc, "role");
	}
	tap_ok(act_row, "docs/abi.md has summary's activation_reason row");
	tap_ok(fs_row, "docs/abi.md has summary's failsafe_reason row");
	tap_ok(role_row, "docs/abi.md has the node records' role row");

	tap_ok(!ktrepl_reason_name(KTREPL_REASON_NONE) &&
	       !ktrepl_reason_field(KTREPL_REASON_NONE) &&
	       !ktrepl_reason_name(KTREPL_REASON_NR),
	       "KTREPL_REASON_NONE and KTREPL_REASON_NR have no word and no field");

	/* each entry a word summary can print as it is, in a field */
	for (r = 1; r < KTREPL_REASON_NR && !bad[0]; r++) {
		const char *w = ktrepl_reason_name(r);

		if (!is_word(w) || !ktrepl_reason_field(r))
			snprintf(bad, sizeof(bad),
				 "entry %d: '%s' in field %s", r,
				 w ? w : "(null)",
				 ktrepl_reason_field(r) ?: "(null)");
	}
	tap_streq(bad, "",
		  "each of the %d entries is a word ([a-z0-9_]+) of a field",
		  NWORDS);

	/* spelled once: two entries with one word would be one reason */
	bad[0] = '\0';
	for (r = 1; r < KTREPL_REASON_NR && !bad[0]; r++)
		for (s = r + 1; s < KTREPL_REASON_NR && !bad[0]; s++)
			if (ktrepl_reason_name(r) && ktrepl_reason_name(s) &&
			    !strcmp(ktrepl_reason_name(r),
				    ktrepl_reason_name(s)))
				snprintf(bad, sizeof(bad),
					 "'%s' at entries %d and %d",
					 ktrepl_reason_name(r), r, s);
	tap_streq(bad, "", "no two entries share a word");

	/* a longer one would reach crash> ktrepl and ktrepl-dump cut */
	bad[0] = '\0';
	for (r = 1; r < KTREPL_REASON_NR && !bad[0]; r++) {
		const char *w = ktrepl_reason_name(r);
		const char *f = ktrepl_reason_field(r);

		if (w && f && !strcmp(f, "failsafe_reason") &&
		    strlen(w) > desc_max)
			snprintf(bad, sizeof(bad), "'%s': %zu bytes, %zu fit",
				 w, strlen(w), desc_max);
	}
	tap_streq(bad, "",
		  "each failsafe_reason word fits the descriptor's failsafe_reason[] with its NUL");

	if (nftw(kernel, scan_source, 16, FTW_PHYS) < 0)
		snprintf(spelled_at, sizeof(spelled_at), "%s: not walked",
			 kernel);
	tap_streq(spelled_at, "",
		  "no module source (kernel/include aside) spells a word in its code (%s)",
		  kernel);

	for (r = 1; r < KTREPL_REASON_NR; r++) {
		const char *w = ktrepl_reason_name(r) ?: "(null)";
		const char *f = ktrepl_reason_field(r) ?: "(null)";
		const char *row = !strcmp(f, "failsafe_reason") ? fs_row :
								  act_row;
		bool ok = row_has(row, w);

		tap_ok(ok, "`%s` is documented in docs/abi.md's %s row", w, f);
		if (!ok)
			printf("# got: no `%s` in the %s row\n# want: `%s` there, with what it means\n",
			       w, f, w);
	}

	/* node roles: what summary's role= and crash> ktrepl print */
	for (r = 0; r < KTREPL_DESC_ROLE_NR; r++) {
		const char *w = ktrepl_role_str(r);
		bool ok = is_word(w) && row_has(role_row, w);

		tap_ok(ok, "role %d (`%s`) is a word documented in docs/abi.md's role row",
		       r, w ?: "(null)");
		if (!ok)
			printf("# got: %s\n# want: a word, quoted in the role row\n",
			       w ? "no such quoted word in the row" :
				   "no word for the role");
	}

	free(role_row);
	free(act_row);
	free(fs_row);
	free(doc);
	return tap_finish();
}
