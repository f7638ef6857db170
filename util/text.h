/*
 * text: the one sanitiser for strings that provisor did not write itself
 * (a worker's FAIL reason, a status segment's event and reason texts, a
 * client's or an operator's argument echoed in an error) before they reach
 * a terminal or a log.
 *
 * Every byte outside printable ASCII (control characters, ESC, DEL, and
 * every byte of a non-ASCII sequence) is shown as \xNN, so that no escape
 * sequence can move the cursor, retitle or clear the operator's terminal,
 * and the bytes stay visible for the report. A text that does not fit is
 * cut at a whole character and marked "...".
 *
 * Header-only (two small functions), so that every library can use it
 * without a link-time dependency; it includes only libc headers.
 */
#ifndef UTIL_TEXT_H
#define UTIL_TEXT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* At most srclen bytes of src (it stops at a NUL), shown safely in dst
 * (dstlen >= 1). Returns dst. */
static inline const char *util_cleann(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t o = 0, i, n = 0, room;

	if (!dstlen)
		return dst;
	for (i = 0; i < srclen && src[i]; i++)
		n += (unsigned char)src[i] >= 0x20 && (unsigned char)src[i] < 0x7f ? 1 : 4;
	/* all of it, or as much as leaves room for the "..." mark */
	room = n < dstlen ? dstlen - 1 : dstlen > 4 ? dstlen - 4 : 0;
	for (i = 0; i < srclen && src[i]; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (ch >= 0x20 && ch < 0x7f) {
			if (o + 1 > room)
				break;
			dst[o++] = (char)ch;
		} else {
			if (o + 4 > room)
				break;
			o += (size_t)snprintf(dst + o, dstlen - o, "\\x%02x", ch);
		}
	}
	if (n >= dstlen && dstlen > 4) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
	return dst;
}

/* The same for a NUL-terminated src. */
static inline const char *util_clean(char *dst, size_t dstlen, const char *src)
{
	return util_cleann(dst, dstlen, src, src ? strlen(src) : 0);
}

/* src shown safely in dst as util_clean does, but a text that does not
 * fit is cut at the end of a word (a space) and marked "...", so a short
 * form never ends mid-word; only a last word longer than two thirds of dst is
 * cut inside. Returns dst. */
static inline const char *util_clip_words(char *dst, size_t dstlen, const char *src)
{
	char full[1024];
	size_t n, cut;

	util_clean(full, sizeof full, src);
	n = strlen(full);
	if (n < dstlen || dstlen < 8)
		return util_clean(dst, dstlen, full);
	cut = dstlen - 4;		/* room for "..." and the NUL */
	while (cut > dstlen / 3 && full[cut] != ' ')
		cut--;
	if (full[cut] != ' ')		/* no word end in reach: a whole character */
		return util_clean(dst, dstlen, full);
	while (cut && full[cut - 1] == ' ')
		cut--;
	memcpy(dst, full, cut);
	memcpy(dst + cut, "...", 4);
	return dst;
}

/* Is every byte of the NUL-terminated s printable ASCII? */
static inline int util_is_clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

#endif
