// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the notification worker.
 *
 * The "records" multicast group, and every filtered subscriber, are fed by
 * a work item that drains the ring from the ring's own notification
 * cursor, a coalescing time (notify_usecs) after the first record it has
 * not sent yet.  Emitters never build messages: they may run in hard
 * interrupt context, and most of the time nobody listens.  They only ask
 * whether anybody does (kprint_ntf_wanted()) and, after storing, kick the
 * worker (kprint_ntf_kick()).
 *
 * The worker is handed the ring and the family when notifications start,
 * rather than naming them: it sits below both the core, which kicks it,
 * and the family's request handlers, which use the core.
 */

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

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

/*
 * The messages of one worker run go out together, up to KPRINT_NTF_BATCH
 * at a time.  Sent one by one as each was filled, they let a subscriber
 * that keeps up read each before the next was ready, and wake once per
 * message; sent back to back, it finds them waiting together and wakes
 * once.
 */
#define KPRINT_NTF_BATCH	8

struct kprint_ntf_batch {
	struct sk_buff *skb[KPRINT_NTF_BATCH];
	unsigned int n[KPRINT_NTF_BATCH];	/* records in each */
	unsigned int nr;
};

/*
 * A filtered subscriber: a socket that asked, with KPRINT_CMD_SUBSCRIBE,
 * for the records its filter matches.
 *
 * Linux 6.1 has no netlink_broadcast_filtered() (6.12 has it, used by
 * genlmsg_multicast_netns_filtered()), and a filtered broadcast
 * would still build every message and run every subscriber's filter in the
 * broadcast itself.  So, as taskstats does for its per-CPU listeners, each
 * filtered subscriber is registered by its port id and sent its own
 * messages by unicast: the same code on 6.1, 6.12 and 6.1-rt, a subscriber
 * that wants nothing of a flood gets no message (no wake-up), and an
 * overrun is the usual ENOBUFS on its socket (netlink_unicast() marks it,
 * as a multicast does).  The registration ends when the socket is closed
 * (NETLINK_URELEASE), or when a send finds the port gone.
 */
struct kprint_ntf_sub {
	struct list_head node;
	u32 portid;
	struct kprint_nl_filter filter;
	struct kprint_nl_target t;
	struct kprint_ntf_batch batch;	/* empty outside a worker run */
};

/* Held by the worker for a whole run, and to change the list. */
static DEFINE_MUTEX(kprint_ntf_subs_lock);
/*
 * Set under kprint_ntf_subs_lock when the module goes: no subscriber is
 * taken after.  Not kprint_ntf_enabled, which is set only after the family
 * is registered: a client that sees the family appear subscribes at once,
 * and was refused until the module's init had got that far.
 */
static bool kprint_ntf_stopping;
/* The group's messages of a run not sent yet; under kprint_ntf_subs_lock. */
static struct kprint_ntf_batch kprint_ntf_group_batch;
static LIST_HEAD(kprint_ntf_subs);
/* Read by emitters in any context, to know that somebody listens. */
static atomic_t kprint_ntf_nr_subs = ATOMIC_INIT(0);

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

/*
 * Notifications are coalesced in time, as a network card coalesces its
 * interrupts: the first record not yet sent to anybody starts a timer, and
 * the worker runs when it expires, sending everything stored meanwhile.  A
 * subscriber is woken once per datagram it finds waiting, not once per
 * record or per worker run, and a burst that takes a millisecond to print
 * goes out in one run of full messages instead of a trickle of small ones
 * that wake every subscriber each.  The price is the delay itself, added
 * to every record's way to user space.  4 ms by default: a burst of a few
 * hundred records can take a slow CPU more than 2 ms to print, and then
 * left in two runs, two wake-ups; a flood wakes a subscriber at most 250
 * times a second.
 */
#define KPRINT_NTF_USECS_MAX	USEC_PER_SEC

static unsigned int kprint_ntf_usecs = 4 * USEC_PER_MSEC;

static int kprint_ntf_usecs_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, KPRINT_NTF_USECS_MAX);
}

static const struct kernel_param_ops kprint_ntf_usecs_ops = {
	.set = kprint_ntf_usecs_set,
	.get = param_get_uint,
};

module_param_cb(notify_usecs, &kprint_ntf_usecs_ops, &kprint_ntf_usecs, 0644);
MODULE_PARM_DESC(notify_usecs,
		 "Microseconds records wait to be sent together, 0..1000000 (default 4000)");

static struct hrtimer kprint_ntf_timer;

static void kprint_ntf_queue(void)
{
	if (kprint_ntf_is_enabled())
		queue_work(system_unbound_wq, &kprint_ntf_work);
	else
		clear_bit(0, &kprint_ntf_pending);
}

static enum hrtimer_restart kprint_ntf_timer_fn(struct hrtimer *timer)
{
	kprint_ntf_queue();
	return HRTIMER_NORESTART;
}

/* Emitters may hold scheduler locks: they only ever raise an irq_work. */
static void kprint_ntf_irq_work_fn(struct irq_work *irq_work)
{
	unsigned int usecs = READ_ONCE(kprint_ntf_usecs);

	if (usecs && kprint_ntf_is_enabled())
		hrtimer_start(&kprint_ntf_timer, ns_to_ktime((u64)usecs * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
	else
		kprint_ntf_queue();
}

static struct irq_work kprint_ntf_irq_work =
	IRQ_WORK_INIT(kprint_ntf_irq_work_fn);

/**
 * kprint_ntf_wanted() - does anybody listen to the records group?
 *
 * Context: Any context.
 * Return: true if a record stored now should be multicast or sent to a
 * filtered subscriber.  Records stored
 * while this is false never are, so a subscriber only receives records
 * stored after it joined.
 */
bool kprint_ntf_wanted(void)
{
	return kprint_ntf_is_enabled() &&
	       (atomic_read(&kprint_ntf_nr_subs) > 0 ||
		kprint_ntf_listeners() > 0);
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

static void kprint_ntf_sub_free(struct kprint_ntf_sub *sub)
{
	list_del(&sub->node);
	atomic_dec(&kprint_ntf_nr_subs);
	kfree(sub);
}

static struct sk_buff *kprint_ntf_msg_new(void)
{
	struct sk_buff *skb;

	skb = genlmsg_new(kprint_ntf_payload(), GFP_KERNEL);
	if (!skb)
		return NULL;
	if (!genlmsg_put(skb, 0, 0, kprint_ntf_family, 0,
			 KPRINT_CMD_RECORD_NTF)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* A filled message into its batch; true when the batch is full. */
static bool kprint_ntf_batch_add(struct kprint_ntf_batch *b,
				 struct kprint_nl_target *t)
{
	nlmsg_end(t->skb, nlmsg_hdr(t->skb));
	b->skb[b->nr] = t->skb;
	b->n[b->nr++] = t->n;
	t->skb = NULL;
	return b->nr == KPRINT_NTF_BATCH;
}

/*
 * -ESRCH: nobody took it, e.g. the only subscriber's buffer was full; that
 * subscriber gets ENOBUFS on its socket, the usual netlink signal to
 * resynchronise.  The send itself did not fail.
 */
static void kprint_ntf_flush_group(void)
{
	struct kprint_ntf_batch *b = &kprint_ntf_group_batch;
	unsigned int i;
	int err;

	for (i = 0; i < b->nr; i++) {
		err = genlmsg_multicast(kprint_ntf_family, b->skb[i], 0,
					KPRINT_NLGRP_RECORDS, GFP_KERNEL);
		if (!err || err == -ESRCH)
			kprint_ntf_count(b->n[i], 0);
		else
			kprint_ntf_count(0, b->n[i]);
	}
	b->nr = 0;
}

static void kprint_ntf_send_group(struct kprint_nl_target *t)
{
	if (!t->n) {
		nlmsg_free(t->skb);
		return;
	}
	if (kprint_ntf_batch_add(&kprint_ntf_group_batch, t))
		kprint_ntf_flush_group();
}

/*
 * -EAGAIN: the subscriber's buffer was full, and it gets ENOBUFS.
 * -ECONNREFUSED: its socket is gone (NETLINK_URELEASE may not have run
 * yet): the rest of its messages are dropped with it.
 */
static void kprint_ntf_flush_sub(struct kprint_ntf_sub *sub)
{
	struct kprint_ntf_batch *b = &sub->batch;
	unsigned int i;
	int err;

	for (i = 0; i < b->nr; i++) {
		err = genlmsg_unicast(&init_net, b->skb[i], sub->portid);
		if (err != -ECONNREFUSED)
			continue;
		while (++i < b->nr)
			nlmsg_free(b->skb[i]);
		kprint_ntf_sub_free(sub);
		return;
	}
	b->nr = 0;
}

static void kprint_ntf_send_sub(struct kprint_ntf_sub *sub)
{
	if (!sub->t.skb)
		return;
	if (!sub->t.n) {
		nlmsg_free(sub->t.skb);
		sub->t.skb = NULL;
		return;
	}
	if (kprint_ntf_batch_add(&sub->batch, &sub->t))
		kprint_ntf_flush_sub(sub);
}

/*
 * One message's worth of records for the group (if anybody joined it) and
 * for each filtered subscriber, read once from the ring.  Returns true when
 * the ring is drained.
 */
static bool kprint_ntf_pass(struct kprint_ring *ring)
{
	struct kprint_nl_target *targets[KPRINT_NL_TARGETS_MAX];
	struct kprint_nl_target group = {};
	struct kprint_nl_fanout fo = { .t = targets };
	struct kprint_ntf_sub *sub, *tmp;
	bool all;

	if (kprint_ntf_listeners() > 0) {
		group.skb = kprint_ntf_msg_new();
		if (group.skb)
			targets[fo.nr++] = &group;
	}
	list_for_each_entry(sub, &kprint_ntf_subs, node) {
		sub->t.skb = kprint_ntf_msg_new();
		sub->t.n = 0;
		if (sub->t.skb)
			targets[fo.nr++] = &sub->t;
	}

	if (!fo.nr) {
		if (kprint_ntf_listeners() <= 0 && list_empty(&kprint_ntf_subs)) {
			kprint_ring_ntf_catch_up(ring);
			return true;
		}
		/* Count what we cannot send, rather than retry forever. */
		all = kprint_ring_read(ring, &ring->ntf, kprint_nl_fanout_one,
				       &fo);
		kprint_ntf_count(0, fo.n);
		return all;
	}

	all = kprint_ring_read(ring, &ring->ntf, kprint_nl_fanout_one, &fo);
	if (group.skb)
		kprint_ntf_send_group(&group);
	list_for_each_entry_safe(sub, tmp, &kprint_ntf_subs, node)
		kprint_ntf_send_sub(sub);
	/* Nothing taken although a message was empty: do not spin. */
	return all || !fo.n;
}

/*
 * Sends everything from the notification cursor to the head, batching as
 * many records per message as fit.  Records overwritten before we got to
 * them were already counted by the ring (mcast_skipped); the subscriber
 * sees the gap in sequence numbers and can catch up with a dump.
 */
static void kprint_ntf_work_fn(struct work_struct *work)
{
	struct kprint_ntf_sub *sub, *tmp;
	bool all = false;

	/*
	 * Before reading the ring: a record stored after this kicks again
	 * (test_and_set_bit() is a full barrier), so none is left behind.
	 */
	clear_bit(0, &kprint_ntf_pending);
	/* The clear before the ring's reads, as explained above. */
	smp_mb__after_atomic();
	mutex_lock(&kprint_ntf_subs_lock);
	while (!all && kprint_ntf_is_enabled()) {
		all = kprint_ntf_pass(kprint_ntf_ring);
		cond_resched();
	}
	kprint_ntf_flush_group();
	list_for_each_entry_safe(sub, tmp, &kprint_ntf_subs, node)
		kprint_ntf_flush_sub(sub);
	mutex_unlock(&kprint_ntf_subs_lock);
}

/**
 * kprint_ntf_subscribe() - register or refilter a filtered subscriber
 * @portid: its socket
 * @filter: what it wants (copied)
 * @from: set to the first record the filter applies to
 * @extack: why it was refused
 *
 * Context: Process context (a request handler).
 * Return: 0, -ESHUTDOWN while kprint is unloaded, -ENOSPC with
 * KPRINT_NL_SUBS_MAX subscribers, or -ENOMEM.
 */
int kprint_ntf_subscribe(u32 portid, const struct kprint_nl_filter *filter,
			 u64 *from, struct netlink_ext_ack *extack)
{
	struct kprint_ring_stats st;
	struct kprint_ntf_sub *sub;
	int err = 0;

	mutex_lock(&kprint_ntf_subs_lock);
	if (kprint_ntf_stopping) {
		NL_SET_ERR_MSG(extack, "kprint is being unloaded");
		err = -ESHUTDOWN;
		goto out;
	}
	list_for_each_entry(sub, &kprint_ntf_subs, node) {
		if (sub->portid == portid) {
			/* A new filter; the count of refused records goes on. */
			sub->filter = *filter;
			*from = sub->t.from;
			goto out;
		}
	}
	if (atomic_read(&kprint_ntf_nr_subs) >= KPRINT_NL_SUBS_MAX) {
		NL_SET_ERR_MSG(extack, "too many filtered subscribers");
		err = -ENOSPC;
		goto out;
	}
	sub = kzalloc(sizeof(*sub), GFP_KERNEL);
	if (!sub) {
		err = -ENOMEM;
		goto out;
	}
	sub->portid = portid;
	sub->filter = *filter;
	sub->t.filter = &sub->filter;
	kprint_ring_get_stats(kprint_ntf_ring, &st);
	sub->t.from = st.next_seq;
	sub->t.next = st.next_seq;
	*from = st.next_seq;
	list_add_tail(&sub->node, &kprint_ntf_subs);
	atomic_inc(&kprint_ntf_nr_subs);
out:
	mutex_unlock(&kprint_ntf_subs_lock);
	return err;
}

static void kprint_ntf_unsubscribe(u32 portid)
{
	struct kprint_ntf_sub *sub, *tmp;

	mutex_lock(&kprint_ntf_subs_lock);
	list_for_each_entry_safe(sub, tmp, &kprint_ntf_subs, node)
		if (sub->portid == portid)
			kprint_ntf_sub_free(sub);
	mutex_unlock(&kprint_ntf_subs_lock);
}

/* A socket closed: if it was a filtered subscriber, forget it. */
static int kprint_ntf_release(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    n->portid && net_eq(n->net, &init_net) &&
	    atomic_read(&kprint_ntf_nr_subs))
		kprint_ntf_unsubscribe(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block kprint_ntf_release_nb = {
	.notifier_call = kprint_ntf_release,
};

/**
 * kprint_ntf_start() - take subscribers
 * @ring: the ring to drain
 * @family: the family whose "records" group gets them
 *
 * Context: Process context (module init), once, before @family is
 * registered: its requests may subscribe as soon as it is.  Nothing is
 * sent until kprint_ntf_enable().
 * Return: 0 or the error of netlink_register_notifier().
 */
int kprint_ntf_start(struct kprint_ring *ring,
		     const struct genl_family *family)
{
	int err;

	err = netlink_register_notifier(&kprint_ntf_release_nb);
	if (err)
		return err;
	hrtimer_init(&kprint_ntf_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	kprint_ntf_timer.function = kprint_ntf_timer_fn;
	kprint_ntf_ring = ring;
	kprint_ntf_family = family;
	return 0;
}

/**
 * kprint_ntf_enable() - start sending stored records
 *
 * Context: Process context (module init), once, after the family passed
 * to kprint_ntf_start() is registered: its groups' ids are known only
 * then.
 */
void kprint_ntf_enable(void)
{
	/* Publishes ring and family to kprint_ntf_is_enabled(). */
	smp_store_release(&kprint_ntf_enabled, true);
	/* Records stored since somebody subscribed were not kicked for. */
	if (atomic_read(&kprint_ntf_nr_subs))
		kprint_ntf_kick();
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
	/* Records waiting for the timer go now. */
	if (hrtimer_cancel(&kprint_ntf_timer))
		queue_work(system_unbound_wq, &kprint_ntf_work);
	flush_work(&kprint_ntf_work);

	/* Stop the worker before the family's groups are released. */
	WRITE_ONCE(kprint_ntf_enabled, false);
	irq_work_sync(&kprint_ntf_irq_work);
	hrtimer_cancel(&kprint_ntf_timer);
	cancel_work_sync(&kprint_ntf_work);

	netlink_unregister_notifier(&kprint_ntf_release_nb);
	mutex_lock(&kprint_ntf_subs_lock);
	kprint_ntf_stopping = true;
	while (!list_empty(&kprint_ntf_subs))
		kprint_ntf_sub_free(list_first_entry(&kprint_ntf_subs,
						     struct kprint_ntf_sub, node));
	mutex_unlock(&kprint_ntf_subs_lock);
}
