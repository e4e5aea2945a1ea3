/* A tc (clsact) program for an emulated node's link (netns-run.sh --drop-multicast N): on the
 * way in, it drops about 1 in N of the UDP datagrams sent to an IP multicast group (224.0.0.0/4)
 * — a lossy switch port, for Pangea's multicast broadcast (PANGEA_MCAST), which must recover
 * every fragment and ACK lost. Nothing else is touched: Pangea's point-to-point traffic, MPI's
 * and hydra's pass. Dropping on each node's way in loses a datagram for that node alone, as a
 * receiver's own link or buffer would.
 *
 * Built with clang -O2 -target bpf; no library: the helpers are called by number. The rate N is
 * the constant DROP_ONE_IN, which netns-run.sh sets at build time. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>

#ifndef DROP_ONE_IN
#define DROP_ONE_IN 100
#endif

static long (*skb_load_bytes)(const void *skb, __u32 offset, void *to,
                              __u32 len) = (void *)BPF_FUNC_skb_load_bytes;
static __u32 (*prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

__attribute__((section("classifier"), used)) int drop(struct __sk_buff *skb)
{
    struct iphdr ip;
    if (skb->protocol != __builtin_bswap16(ETH_P_IP) ||
        skb_load_bytes(skb, ETH_HLEN, &ip, sizeof ip) != 0 || ip.protocol != IPPROTO_UDP)
        return TC_ACT_OK;
    /* 224.0.0.0/4: the first byte of the address (network order) is 1110xxxx. */
    if ((((const unsigned char *)&ip.daddr)[0] & 0xf0) != 0xe0)
        return TC_ACT_OK;
    return prandom_u32() % DROP_ONE_IN == 0 ? TC_ACT_SHOT : TC_ACT_OK;
}

char drop_license[] __attribute__((section("license"), used)) = "GPL";
