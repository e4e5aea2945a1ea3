/* Internal to src/pipeline: the client engine (client.c) as the bring-up (network.c) drives
 * it. */
#ifndef PG_PIPE_INTERNAL_H
#define PG_PIPE_INTERNAL_H

#include "pipeline.h"

void pipe_client_open(void);
void pipe_client_close(void);
void pipe_client_connect(int node, const void *server_name);
void pipe_client_set_region(int pe, int seg, const struct pg_ds_region *region);
/* Receive space a server reserves for each PE of another node (the client's credit). */
size_t pipe_client_credit_bytes(void);

#endif
