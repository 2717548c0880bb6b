/* packet.c: the packet-size rule shared by the simulator, the model and the compression tools. */
#include "core.h"

int gpuest_packet_flits(uint64_t payload_bits, int flit_bytes, int header_bytes)
{
    uint64_t flit_bits = 8u * (uint64_t)(flit_bytes > 0 ? flit_bytes : 1);
    uint64_t n;
    if (header_bytes <= 0)
        n = 1u + (payload_bits + flit_bits - 1u) / flit_bits;
    else
        n = (8u * (uint64_t)header_bytes + payload_bits + flit_bits - 1u) / flit_bits;
    if (n < 1u)
        n = 1u;
    return n > (uint64_t)INT32_MAX ? INT32_MAX : (int)n;
}
