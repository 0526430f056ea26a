/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_UTF8_H
#define KTREPL_UTF8_H

/*
 * Text from a dump (names, notes, VMCOREINFO values) can be any bytes
 * once the dump is damaged. The writers pass valid UTF-8 through and
 * escape the rest, so that no error or JSON document ever carries bytes
 * a reader cannot decode.
 */

/* the length of the valid UTF-8 sequence at s: 1 to 4, or 0 if invalid */
static inline int kt_utf8_seq_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, surrogates, past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

#endif
