/*
 * A resolved stack's frames (struct stk_stack: every field any output format
 * reads: names, modules, addresses, mappings, build IDs, inlined functions,
 * source lines, how each frame was found, why the chain ended) as one line
 * of UTF-8 text for the event log's `frames` column, and back. `stk report`
 * rebuilds from it exactly the stacks the capture printed, in every format.
 *
 *   stk-frames 1 TAB kernel_missing TAB user_missing TAB unwind_stop
 *   then per frame, kernel frames then user frames, each leaf first:
 *   LF k|u TAB flags TAB address TAB symbol_offset TAB map_start TAB map_end
 *      TAB map_offset TAB symbol TAB module TAB build_id TAB found_by TAB file TAB line
 *   and after a frame its inlined functions, innermost first:
 *   LF i TAB symbol TAB file TAB line
 *
 * Lines k hold the stack's kernel frames, u its user frames. Numbers are
 * hexadecimal (line decimal); flags are letters (K: a kernel frame, m: main
 * executable, s: synthetic name) or "-"; a NULL string is \N; in strings a
 * backslash, TAB, LF, other control bytes and bytes that are not UTF-8 are
 * escaped (\\ \t \n \xHH), so the text is valid UTF-8 whatever a symbol holds.
 */
#ifndef STK_FRAMES_CODEC_H
#define STK_FRAMES_CODEC_H

#include <stddef.h>

#include "core/base/byte_buf.h"
#include "core/stack/stack.h"

/* Appends s's frames to b (b->oom on allocation failure). */
void stk_frames_encode(struct stk_buf *b, const struct stk_stack *s);

/* Frames decoded from text: one allocation holding every array and string. */
struct stk_decoded_frames;

/*
 * Decodes text[0..len) into st's frame fields (kernel, user, their counts,
 * the missing flags, unwind_stop), which point into *owner until
 * stk_frames_free(*owner). 0, or -1 with a one-line reason in err when the
 * text is not what stk_frames_encode writes (or out of memory).
 */
int stk_frames_decode(const char *text, size_t len, struct stk_stack *st, struct stk_decoded_frames **owner,
		      char *err, size_t err_len);
void stk_frames_free(struct stk_decoded_frames *owner);

/* Most frames (kernel and user) and inlined entries a decoded stack may hold. */
#define STK_FRAMES_MAX 4096
#define STK_FRAMES_INLINED_MAX 65536

#endif
