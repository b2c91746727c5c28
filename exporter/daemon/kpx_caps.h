/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dropping privileges after setup (kpx_caps.c).
 */
#ifndef KPX_CAPS_H
#define KPX_CAPS_H

#include <stdbool.h>

/*
 * Drop every capability but, if keep_sys_admin, CAP_SYS_ADMIN in the
 * permitted set (effective: none), and set no_new_privs.  Affects the
 * calling thread and the threads it creates afterwards: call it before
 * any thread exists.
 */
int kpx_drop_privileges(bool keep_sys_admin);

#endif /* KPX_CAPS_H */
