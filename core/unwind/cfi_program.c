/* A CFA instruction stream checked against the guard's bounds: see cfi_program.h. */
#include "core/unwind/cfi_program.h"

#include <dwarf.h>
#include <string.h>

#include "core/unwind/cfi_bounds.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char stk_cfi_past_end[] = "CFI refused: an instruction runs past the end of its CIE or FDE";
static const char too_long[] = "CFI refused: more than " STR(STK_CFI_MAX_INSNS) " instructions in one CIE or FDE";
static const char too_many_copies[] = "CFI refused: more than " STR(STK_CFI_MAX_REMEMBERS)
				     " DW_CFA_remember_state in one CIE or FDE";
static const char too_deep[] = "CFI refused: DW_CFA_remember_state nested deeper than " STR(STK_CFI_MAX_DEPTH);
static const char long_expr[] = "CFI refused: a DWARF expression longer than " STR(STK_CFI_MAX_EXPR_BYTES) " bytes";

/* Where the decoding is: each reader below does nothing once why is set. */
struct cursor {
	const struct stk_cfi_program *prog;
	struct stk_cfi_program_stats *st;
	const uint8_t *p, *end;
	const char *why;
};

static void check_reg(struct cursor *c, uint64_t reg)
{
	if (c->why)
		return;
	if (reg > c->st->max_register)
		c->st->max_register = reg;
	if (reg > c->prog->max_register)
		c->why = c->prog->register_reason;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;

	if (!c->why && !stk_cfi_read_uleb(&c->p, c->end, &v))
		c->why = stk_cfi_past_end;
	return v;
}

static void sleb(struct cursor *c)
{
	int64_t v;

	if (!c->why && !stk_cfi_read_sleb(&c->p, c->end, &v))
		c->why = stk_cfi_past_end;
}

/* A register operand (ULEB128). */
static void reg_operand(struct cursor *c)
{
	uint64_t reg = uleb(c);

	check_reg(c, reg);
}

/* A DWARF expression operand: ULEB128 length, then that many bytes (libdw runs it when unwinding). */
static void expr_operand(struct cursor *c)
{
	uint64_t len = uleb(c);

	if (c->why)
		return;
	if (len > STK_CFI_MAX_EXPR_BYTES)
		c->why = long_expr;
	else if (len > (uint64_t)(c->end - c->p))
		c->why = stk_cfi_past_end;
	else {
		if (len > c->st->max_expr)
			c->st->max_expr = (unsigned)len;
		c->p += len;
	}
}

static void fixed(struct cursor *c, unsigned n)
{
	uint64_t v;

	if (!c->why && !stk_cfi_read_fixed(c->prog->section, &c->p, c->end, n, &v))
		c->why = stk_cfi_past_end;
}

static void encoded(struct cursor *c, uint8_t encoding)
{
	uint64_t v;

	if (!c->why && !stk_cfi_read_encoded(c->prog->section, encoding, &c->p, c->end, &v))
		c->why = stk_cfi_past_end;
}

const char *stk_cfi_program_check(const struct stk_cfi_program *prog, const uint8_t *p, const uint8_t *end,
				  struct stk_cfi_program_stats *st)
{
	struct cursor c = { prog, st, p, end, NULL };
	unsigned depth = 0;

	memset(st, 0, sizeof(*st));
	while (c.p < c.end && !c.why) {
		uint8_t op = *c.p++;

		if (++st->insns > STK_CFI_MAX_INSNS)
			return too_long;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			continue;
		case DW_CFA_offset:
			check_reg(&c, op & 0x3f);
			uleb(&c);
			continue;
		case DW_CFA_restore:
			check_reg(&c, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_GNU_window_save: /* aarch64: negate_ra_state; elsewhere registers 8-31 */
			break;
		case DW_CFA_remember_state:
			/* libdw copies the whole register array at each one, and keeps each level. */
			if (++st->remembers > STK_CFI_MAX_REMEMBERS)
				return too_many_copies;
			if (++depth > STK_CFI_MAX_DEPTH)
				return too_deep;
			if (depth > st->max_depth)
				st->max_depth = depth;
			break;
		case DW_CFA_restore_state:
			if (depth)
				depth--;
			break;
		case DW_CFA_set_loc:
			encoded(&c, prog->fde_encoding);
			break;
		case DW_CFA_advance_loc1:
			fixed(&c, 1);
			break;
		case DW_CFA_advance_loc2:
			fixed(&c, 2);
			break;
		case DW_CFA_advance_loc4:
			fixed(&c, 4);
			break;
		case DW_CFA_MIPS_advance_loc8:
			fixed(&c, 8);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_def_cfa:
			reg_operand(&c);
			uleb(&c);
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset_sf:
		case DW_CFA_def_cfa_sf:
			reg_operand(&c);
			sleb(&c);
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			reg_operand(&c);
			break;
		case DW_CFA_register:
			reg_operand(&c);
			reg_operand(&c);
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_GNU_args_size:
			uleb(&c);
			break;
		case DW_CFA_def_cfa_offset_sf:
			sleb(&c);
			break;
		case DW_CFA_def_cfa_expression:
			expr_operand(&c);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg_operand(&c);
			expr_operand(&c);
			break;
		default:
			/* libdw stops at an opcode it does not know: nothing after it runs. */
			return NULL;
		}
	}
	return c.why;
}
