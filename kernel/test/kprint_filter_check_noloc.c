// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_filter_check.c again, under another object name so that kbuild
 * can compile it with different flags (see CFLAGS_ in ../Kbuild).
 */
#include "kprint_filter_check.c"
