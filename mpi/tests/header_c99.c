/* zarr_mpi.h must compile on its own as C99 with -Wall -Wextra -Werror -pedantic. */
#include "zarr_mpi.h"

int main(void) {
    /* Take the addresses of the functions so that the declarations are exercised. */
    zarr_status (*create)(MPI_Comm, zarr_comm **) = zarr_comm_create_mpi;
    zarr_status (*create_f)(MPI_Fint, zarr_comm **) = zarr_comm_create_mpi_f;
    return create == 0 || create_f == 0 || ZARR_OK != 0;
}
