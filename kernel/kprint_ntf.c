// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the notification worker.
 *
 * The "records" multicast group is fed by a work item that drains the ring
 * from the ring's own notification cursor.  Emitters never build messages:
 * they may run in hard interrupt context, and most of the time nobody
 * listens.  They only ask whether anybody does (kprint_ntf_wanted()) and,
 * after storing, kick the worker (kprint_ntf_kick()).
 *
 * The worker is handed the ring and the family when notifications start,
 * rather than naming them: it sits below both the core, which kicks it,
 * and the family's request handlers, which use the core.
 */

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "kprint_genl.h"
#include "kprint_nl_fill.h"
#include "kprint_ntf.h"
#include "kprint_ring.h"

/*
 * Set before notifications are enabled and never changed while they are:
 * whoever sees kprint_ntf_enabled (read with acquire) sees these too.
 */
static struct kprint_ring *kprint_ntf_ring;
static const struct genl_family *kprint_ntf_family;

/* Cleared first on unload, so that no new multicast work is started. */
static bool kprint_ntf_enabled;

static atomic64_t kprint_mcast_sent = ATOMIC64_INIT(0);
static atomic64_t kprint_mcast_failed = ATOMIC64_INIT(0);

static void kprint_ntf_work_fn(struct work_struct *work);
static DECLARE_WORK(kprint_ntf_work, kprint_ntf_work_fn);

/*
 * Set from the first kick until the worker starts draining: every record
 * stored in between will be sent by that run, so its emitter need not
 * raise the irq_work again.  Without it each record paid for a
 * self-interrupt while the worker was still on its way.
 */
static unsigned long kprint_ntf_pending;

static bool kprint_ntf_is_enabled(void)
{
	/* Pairs with kprint_ntf_init()'s release: ring and family are set. */
	return smp_load_acquire(&kprint_ntf_enabled);
}

static int kprint_ntf_listeners(void)
{
	return genl_has_listeners(kprint_ntf_family, &init_net,
				  KPRINT_NLGRP_RECORDS);
}

static void kprint_ntf_count(unsigned int sent, unsigned int failed)
{
	atomic64_add(sent, &kprint_mcast_sent);
	atomic64_add(failed, &kprint_mcast_failed);
}

/* Emitters may hold scheduler locks: they only ever raise an irq_work. */
static void kprint_ntf_irq_work_fn(struct irq_work *irq_work)
{
	if (kprint_ntf_is_enabled())
		queue_work(system_unbound_wq, &kprint_ntf_work);
	else
		clear_bit(0, &kprint_ntf_pending);
}

static struct irq_work kprint_ntf_irq_work =
	IRQ_WORK_INIT(kprint_ntf_irq_work_fn);

/**
 * kprint_ntf_wanted() - does anybody listen to the records group?
 *
 * Context: Any context.
 * Return: true if a record stored now should be multicast.  Records stored
 * while this is false never are, so a subscriber only receives records
 * stored after it joined.
 */
bool kprint_ntf_wanted(void)
{
	return kprint_ntf_is_enabled() && kprint_ntf_listeners() > 0;
}

/**
 * kprint_ntf_kick() - have the notification worker drain the ring
 *
 * Context: Any context.
 */
void kprint_ntf_kick(void)
{
	if (!test_and_set_bit(0, &kprint_ntf_pending))
		irq_work_queue(&kprint_ntf_irq_work);
}

/**
 * kprint_ntf_get_stats() - read the multicast counters
 * @sent: set to the records multicast to at least one listener
 * @failed: set to the records whose multicast failed
 *
 * Context: Any context.
 */
void kprint_ntf_get_stats(u64 *sent, u64 *failed)
{
	*sent = atomic64_read(&kprint_mcast_sent);
	*failed = atomic64_read(&kprint_mcast_failed);
}

/*
 * Payload of a notification: about 15 KiB (the skb stays within an order-2
 * allocation), and at least one record of the largest size.  Each datagram
 * is a wake-up for every subscriber, so a burst goes out in as few as
 * possible; a page-sized datagram carried only about ten records.
 */
#define KPRINT_NTF_PAYLOAD	(SZ_16K - SZ_1K)

static size_t kprint_ntf_payload(void)
{
	return max_t(size_t, KPRINT_NTF_PAYLOAD, kprint_nl_record_max());
}

/*
 * Sends everything from the notification cursor to the head, batching as
 * many records per message as fit.  Records overwritten before we got to
 * them were already counted by the ring (mcast_skipped); the subscriber
 * sees the gap in sequence numbers and can catch up with a dump.
 */
static void kprint_ntf_work_fn(struct work_struct *work)
{
	struct kprint_ring *ring;
	struct kprint_nl_fill f;
	struct sk_buff *skb;
	bool all;
	void *hdr;
	int err;

	/*
	 * Before reading the ring: a record stored after this kicks again
	 * (test_and_set_bit() is a full barrier), so none is left behind.
	 */
	clear_bit(0, &kprint_ntf_pending);
	/* The clear before the ring's reads, as explained above. */
	smp_mb__after_atomic();
	do {
		if (!kprint_ntf_is_enabled())
			return;
		ring = kprint_ntf_ring;
		if (kprint_ntf_listeners() <= 0) {
			kprint_ring_ntf_catch_up(ring);
			return;
		}

		memset(&f, 0, sizeof(f));
		f.end_seq = U64_MAX;
		f.ntf = true;

		skb = genlmsg_new(kprint_ntf_payload(), GFP_KERNEL);
		if (!skb) {
			/* Count what we cannot send, rather than retry forever. */
			kprint_ring_read(ring, &ring->ntf, kprint_nl_fill_one,
					 &f);
			kprint_ntf_count(0, f.n);
			return;
		}

		hdr = genlmsg_put(skb, 0, 0, kprint_ntf_family, 0,
				  KPRINT_CMD_RECORD_NTF);
		if (!hdr) {
			nlmsg_free(skb);
			return;
		}

		f.skb = skb;
		all = kprint_ring_read(ring, &ring->ntf, kprint_nl_fill_one,
				       &f);
		if (!f.n) {
			nlmsg_free(skb);
			return;
		}
		genlmsg_end(skb, hdr);

		/*
		 * -ESRCH: nobody took it, e.g. the only subscriber's buffer
		 * was full; that subscriber gets ENOBUFS on its socket, the
		 * usual netlink signal to resynchronise.  The send itself
		 * did not fail.
		 */
		err = genlmsg_multicast(kprint_ntf_family, skb, 0,
					KPRINT_NLGRP_RECORDS, GFP_KERNEL);
		if (!err || err == -ESRCH)
			kprint_ntf_count(f.n, 0);
		else
			kprint_ntf_count(0, f.n);

		cond_resched();
	} while (!all);
}

/**
 * kprint_ntf_start() - start multicasting stored records
 * @ring: the ring to drain
 * @family: the registered family whose "records" group gets them
 *
 * Context: Process context (module init), once.
 */
void kprint_ntf_start(struct kprint_ring *ring,
		      const struct genl_family *family)
{
	kprint_ntf_ring = ring;
	kprint_ntf_family = family;
	/* Publishes ring and family to kprint_ntf_is_enabled(). */
	smp_store_release(&kprint_ntf_enabled, true);
}

/**
 * kprint_ntf_stop() - send what subscribers have not got, then stop
 *
 * Context: Process context (module exit), after the last record was
 * stored and before the family is unregistered.  On return no
 * notification work is pending or running.
 */
void kprint_ntf_stop(void)
{
	/*
	 * No record can be stored any more, so one last run of the worker
	 * multicasts the tail of the ring: a subscriber that kept up has
	 * every record when it sees the family go.
	 */
	irq_work_sync(&kprint_ntf_irq_work);
	flush_work(&kprint_ntf_work);

	/* Stop the worker before the family's groups are released. */
	WRITE_ONCE(kprint_ntf_enabled, false);
	irq_work_sync(&kprint_ntf_irq_work);
	cancel_work_sync(&kprint_ntf_work);
}
