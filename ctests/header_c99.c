/* zarr.h must compile on its own as C99 with -Wall -Wextra -Werror -pedantic. */
#include "zarr.h"

int main(void) {
    /* Take the address of a function and use a macro so the declarations are exercised. */
    const char *(*status_str)(int32_t) = zarr_status_str;
    return status_str == 0 || ZARR_OK != 0;
}
