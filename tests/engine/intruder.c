/* A process outside the job (spawned by tests/engine/job_key.c, not a PE): opens its own
 * libfabric endpoint of the job's provider and sends a data server requests it does not know
 * the key of.
 *
 *   intruder PROVIDER ADDRESS_FILE TARGET SEGMENT OFFSET WELL_FORMED FUZZED SEED
 *
 * ADDRESS_FILE holds the server's endpoint address (PG_NET_ADDR_MAX bytes). It sends
 * WELL_FORMED puts of 64 bytes of 0xEE to PE TARGET's SEGMENT at OFFSET, exactly as a PE's
 * would be but for the key (random), then FUZZED messages: random bytes of random lengths
 * and copies of the put with random bytes changed. Waits for every send to complete and
 * prints "intruder: sent N" (exit 0), or why it could not (exit 1). */
#define _GNU_SOURCE
#include "dataserver/dataserver.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define PUT_BYTES 64
#define MAX_FUZZ 512

static void fail(const char *what, int rc)
{
    fprintf(stderr, "intruder: %s: %s\n", what, fi_strerror(-rc));
    exit(1);
}

static uint64_t next(uint64_t *state) /* xorshift64 */
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

int main(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: intruder PROVIDER ADDRESS_FILE TARGET SEGMENT OFFSET "
                        "WELL_FORMED FUZZED SEED\n");
        return 1;
    }
    char address[PG_NET_ADDR_MAX];
    FILE *f = fopen(argv[2], "rb");
    if (!f || fread(address, 1, sizeof address, f) != sizeof address) {
        fprintf(stderr, "intruder: cannot read %s\n", argv[2]);
        return 1;
    }
    fclose(f);
    int well_formed = atoi(argv[6]), fuzzed = atoi(argv[7]);
    uint64_t state = strtoull(argv[8], NULL, 0) | 1;

    struct fi_info *hints = fi_allocinfo(), *info;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(argv[1]);
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info);
    if (rc)
        fail("fi_getinfo", rc);
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1024};
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)) ||
        (rc = fi_domain(fabric, info, &domain, NULL)) ||
        (rc = fi_av_open(domain, &av_attr, &av, NULL)) ||
        (rc = fi_cq_open(domain, &cq_attr, &cq, NULL)) ||
        (rc = fi_endpoint(domain, info, &ep, NULL)) || (rc = fi_ep_bind(ep, &av->fid, 0)) ||
        (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(ep)))
        fail("opening an endpoint", rc);
    fi_addr_t server;
    /* The name lists the server's rails (a count, then per rail a 4-byte network, a length
     * byte and the provider's address): the first rail's address. */
    if (fi_av_insert(av, address + 6, 1, &server, 0, NULL) != 1)
        fail("fi_av_insert", -FI_EINVAL);

    static char messages[256][sizeof(struct pg_ds_header) + MAX_FUZZ];
    static struct fi_context contexts[256];
    struct fid_mr *mr;
    if ((rc = fi_mr_reg(domain, messages, sizeof messages, FI_SEND, 0, 0, 0, &mr, NULL)))
        fail("fi_mr_reg", rc);
    void *desc = fi_mr_desc(mr);
    uint64_t wrong_key;
    if (getrandom(&wrong_key, sizeof wrong_key, 0) != sizeof wrong_key)
        wrong_key = next(&state);
    struct pg_ds_header put = {.version = PG_DS_PROTOCOL_VERSION,
                               .type = PG_DS_PUT,
                               .segment = (uint8_t)atoi(argv[4]),
                               .layout = PG_DS_CONTIG,
                               .source = 0,
                               .target = (uint32_t)atoi(argv[3]),
                               .offset = strtoull(argv[5], NULL, 0),
                               .length = PUT_BYTES,
                               .key = wrong_key};
    int total = well_formed + fuzzed, sent = 0, done = 0;
    while (done < total) {
        if (sent < total && sent - done < 256) {
            int slot = sent % 256;
            char *m = messages[slot];
            size_t len = sizeof put + PUT_BYTES;
            memcpy(m, &put, sizeof put);
            memset(m + sizeof put, 0xEE, PUT_BYTES);
            ((struct pg_ds_header *)m)->seq = (uint64_t)sent;
            if (sent >= well_formed && next(&state) % 2) { /* random bytes, random length */
                len = 1 + next(&state) % (sizeof put + MAX_FUZZ);
                for (size_t i = 0; i < len; i++)
                    m[i] = (char)next(&state);
            } else if (sent >= well_formed) { /* the put with some bytes changed */
                for (int k = 1 + (int)(next(&state) % 8); k > 0; k--)
                    m[next(&state) % len] = (char)next(&state);
            }
            rc = (int)fi_send(ep, m, len, desc, server, &contexts[slot]);
            if (rc == 0)
                sent++;
            else if (rc != -FI_EAGAIN)
                fail("fi_send", rc);
        }
        struct fi_cq_entry entries[64];
        ssize_t n = fi_cq_read(cq, entries, 64);
        if (n > 0)
            done += (int)n;
        else if (n != -FI_EAGAIN)
            fail("fi_cq_read", (int)n);
    }
    printf("intruder: sent %d\n", sent);
    fi_close(&mr->fid);
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return 0;
}
