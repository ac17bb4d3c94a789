/* `stk --install [-s] DIR`: applet links next to or pointing at stk. */
#ifndef STK_INSTALL_H
#define STK_INSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/base/dispatch.h"

/*
 * Creates DIR/stk-APPLET for every applet and DIR/APPLET for those with
 * bare_link, as symlinks to self_path (symbolic) or hard links. Existing
 * links to stk are replaced; any other existing file makes the whole call
 * fail before anything is created. Prints each link to out. 0 on success,
 * -1 with err set.
 */
int stk_install_links(const char *self_path, const char *dir, bool symbolic,
		      const struct stk_applet *table, size_t n, FILE *out, char *err, size_t errlen);

#endif
