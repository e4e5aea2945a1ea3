/* A tc (clsact) program for an emulated node's link (netns-run.sh --corrupt N): it flips one
 * byte of a Pangea message in about 1 in N of the TCP packets between two nodes, as a
 * faulty link whose corruption the TCP checksum misses would. Only Pangea's bytes: a packet
 * chosen is searched (first CORRUPT_SCAN bytes of its payload) for the start of a Pangea
 * message header (protocol version, a known type, then fields in their ranges), and a byte
 * of that message at a random offset of its first MESSAGE_SPAN bytes is flipped — the
 * provider's own framing, which a real corruption could hit as well, is left alone, since no
 * end-to-end checksum above it could help there. Packets to or from the head namespace
 * (hydra's control traffic) are never touched. veth delivers the changed bytes as they are:
 * the kernel does not verify TCP checksums on it (tests/netns/README.md).
 *
 * Built with clang -O2 -target bpf; no library: the two helpers are called by number. The
 * rate N is the constant `one_in`, which netns-run.sh patches into the object through the
 * CORRUPT_ONE_IN define at build time. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>

#ifndef CORRUPT_ONE_IN
#define CORRUPT_ONE_IN 1000
#endif
#ifndef HEAD_ADDR /* the head namespace's address, in network order as a host integer */
#define HEAD_ADDR 0
#endif
#define PANGEA_VERSION 10 /* PG_DS_PROTOCOL_VERSION */
/* PG_DS_CLOSE: the last type this test corrupts (signals and the servers' forwards are
 * left alone) */
#define PANGEA_LAST_TYPE 14
#define CORRUPT_SCAN 512
#define MESSAGE_SPAN 104 /* sizeof(struct pg_ds_header): its fields and what follows */

static long (*skb_load_bytes)(const void *skb, __u32 offset, void *to,
                              __u32 len) = (void *)BPF_FUNC_skb_load_bytes;
static long (*skb_store_bytes)(void *skb, __u32 offset, const void *from, __u32 len,
                               __u64 flags) = (void *)BPF_FUNC_skb_store_bytes;
static __u32 (*prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

/* The first 8 bytes of a Pangea header: version, type, segment, op, width, fetch, layout,
 * flags (PG_DS_ORDERED, PG_DS_MORE, PG_DS_COUNTED: below 8). */
static int looks_like_header(const unsigned char *b)
{
    return b[0] == PANGEA_VERSION && b[1] >= 1 && b[1] <= PANGEA_LAST_TYPE && b[2] < 8 &&
           b[3] < 8 && (b[4] == 0 || b[4] == 4 || b[4] == 8) && b[5] <= 1 && b[6] < 4 && b[7] < 8;
}

__attribute__((section("classifier"), used)) int corrupt(struct __sk_buff *skb)
{
    if (prandom_u32() % CORRUPT_ONE_IN != 0)
        return TC_ACT_OK;
    struct iphdr ip;
    struct tcphdr tcp;
    if (skb->protocol != __builtin_bswap16(ETH_P_IP) ||
        skb_load_bytes(skb, ETH_HLEN, &ip, sizeof ip) != 0 || ip.protocol != IPPROTO_TCP ||
        ip.saddr == HEAD_ADDR || ip.daddr == HEAD_ADDR)
        return TC_ACT_OK;
    __u32 payload = ETH_HLEN + ip.ihl * 4;
    if (skb_load_bytes(skb, payload, &tcp, sizeof tcp) != 0)
        return TC_ACT_OK;
    payload += tcp.doff * 4;
    for (__u32 at = 0; at < CORRUPT_SCAN; at++) {
        unsigned char b[8];
        if (skb_load_bytes(skb, payload + at, b, sizeof b) != 0)
            return TC_ACT_OK; /* the payload ended */
        if (!looks_like_header(b))
            continue;
        __u32 victim = payload + at + 1 + prandom_u32() % (MESSAGE_SPAN - 1);
        unsigned char byte;
        if (skb_load_bytes(skb, victim, &byte, 1) != 0)
            return TC_ACT_OK;
        byte ^= (unsigned char)(1 + prandom_u32() % 255);
        skb_store_bytes(skb, victim, &byte, 1, 0);
        return TC_ACT_OK;
    }
    return TC_ACT_OK;
}

char corrupt_license[] __attribute__((section("license"), used)) = "GPL";
