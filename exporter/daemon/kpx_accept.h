/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The listening sockets' accept loop, and the counts by client address
 * (kpx_accept.c).
 */
#ifndef KPX_ACCEPT_H
#define KPX_ACCEPT_H

#include <stdbool.h>
#include <sys/socket.h>

struct kpx_addr;
struct kpx_http;
struct kpx_peer;

int kpx_accept_start(struct kpx_http *h);
void kpx_accept_stop(struct kpx_http *h);
/* sa as the limits count it; false for a family they do not count. */
bool kpx_addr_of(const struct sockaddr *sa, struct kpx_addr *a);
/* The counts of a (conn_lock held), made when create; NULL when not. */
struct kpx_peer *kpx_peer_get(struct kpx_http *h, const struct kpx_addr *a, bool create);
/* Forget p once it holds nothing (conn_lock held). */
void kpx_peer_put(struct kpx_http *h, struct kpx_peer *p);
double kpx_mono(void);

#endif /* KPX_ACCEPT_H */
