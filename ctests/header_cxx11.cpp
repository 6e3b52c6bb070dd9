// zarr.h must compile on its own as C++11 with -Wall -Wextra -Werror -pedantic.
#include "zarr.h"

int main() {
    const char *(*status_str)(int32_t) = zarr_status_str;
    return status_str == nullptr || ZARR_OK != 0;
}
