// SPDX-License-Identifier: GPL-2.0
/*
 * kprint record clocks.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/time64.h>

#include "kprint_clock.h"

/**
 * DOC: kprint record clocks
 *
 * Every record carries CLOCK_MONOTONIC and CLOCK_REALTIME.  Reading them
 * means reading the clocksource, which is cheap where that is the TSC or
 * kvm-clock, but where it is the HPET or the ACPI PM timer (a TSC the
 * kernel found unstable or unsynchronized, an emulator) a read is a device
 * access of half a microsecond or more.  With the printk bridge on, that
 * is on every printk() of the machine; printk itself stamps its messages
 * with local_clock() for the same reason.
 *
 * So each CPU reads the clocks at most once per tick and KPRINT_CLOCK_SPAN,
 * its anchor, and stamps the records in between with the anchor plus how
 * far sched_clock() went since.  Not local_clock(), printk's: where the
 * TSC is unstable, local_clock() is pulled back to the clocksource at
 * ticks and idle wake-ups, in steps of microseconds that an anchor taken
 * before one would carry for the rest of its span (8 us seen in the
 * emulated guest of the tests).  sched_clock() is the TSC alone, so the
 * stamp is off by the TSC's rate error against the clocksource over at
 * most a span: nanoseconds for a TSC the kernel found stable, its
 * calibration error where it did not (0.2 %, 2 us, in that guest:
 * tests/e2e/record-clocks.py).  A TSC that stops in deep idle (CPUs from
 * before 2008) can make it up to a tick.  The wall-clock stamp is the
 * monotonic one plus the offset between the two clocks at the anchor, so
 * a step of the wall clock (settimeofday(), a leap second) reaches the
 * stamps within a tick.  A step back of sched_clock(), as after CPU
 * hotplug or resume, re-anchors.  The ring makes the stamps non-decreasing
 * in sequence order, as they were when each record read the clocksource
 * under its lock.
 */

/* How long one clocksource read serves: a millisecond of sched_clock(). */
#define KPRINT_CLOCK_SPAN	NSEC_PER_MSEC

/* The longest clocksource read that may anchor: off by half of it at most. */
#define KPRINT_CLOCK_PAIR_MAX	(2 * NSEC_PER_USEC)

/**
 * struct kprint_clock_anchor - one CPU's last clock reads
 * @local: sched_clock() just before them, 0 before the first
 * @mono: CLOCK_MONOTONIC then
 * @real_offset: CLOCK_REALTIME - CLOCK_MONOTONIC then
 * @jiffies: the tick then
 */
struct kprint_clock_anchor {
	u64 local;
	u64 mono;
	s64 real_offset;
	unsigned long jiffies;
};

static DEFINE_PER_CPU(struct kprint_clock_anchor, kprint_clock_anchors);

/**
 * kprint_clock_read() - the clocks for a record being stored
 * @real_offset: set to CLOCK_REALTIME - CLOCK_MONOTONIC, as of at most
 *	KPRINT_CLOCK_SPAN ago
 *
 * Context: Interrupts off (the ring's lock), any context but NMI.
 * Return: nanoseconds of CLOCK_MONOTONIC, within sched_clock()'s rate
 * error over at most KPRINT_CLOCK_SPAN of the clock's reading now.
 */
u64 kprint_clock_read(s64 *real_offset)
{
	struct kprint_clock_anchor *a = this_cpu_ptr(&kprint_clock_anchors);
	u64 local = sched_clock();
	u64 since = local - a->local;
	u64 mono, after;

	if (likely(a->local && since < KPRINT_CLOCK_SPAN &&
		   READ_ONCE(jiffies) == a->jiffies)) {
		*real_offset = a->real_offset;
		return a->mono + since;
	}
	mono = ktime_get_ns();
	after = sched_clock();
	*real_offset = ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono))) - mono;
	/*
	 * The anchor pairs the clocksource with sched_clock() halfway
	 * between the reads around it, so is off by half the time between
	 * them: kept only if that was short.  A long one is an NMI, a
	 * machine check, or an emulator translating the clock's code anew
	 * (8 us late, seen in the guest of the tests).
	 */
	if (after - local > KPRINT_CLOCK_PAIR_MAX) {
		a->local = 0;
		return mono;
	}
	a->local = local + (after - local) / 2;
	a->mono = mono;
	a->real_offset = *real_offset;
	a->jiffies = READ_ONCE(jiffies);
	return mono;
}
