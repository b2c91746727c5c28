/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint_demo: one file per pretend subsystem, because KPRINT_SUBSYSTEM is
 * a per-file tag, exactly as it would be in real drivers.  Each source is
 * called from the demo's one work item, so its call counter needs no lock.
 */
#ifndef _KPRINT_DEMO_H
#define _KPRINT_DEMO_H

void kprint_demo_usb(void);
void kprint_demo_net(void);
void kprint_demo_ext4(void);
void kprint_demo_scsi(void);

#endif /* _KPRINT_DEMO_H */
