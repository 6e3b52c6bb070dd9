// zarr_mpi.h must compile on its own as C++11 with -Wall -Wextra -Werror -pedantic, its
// functions declared extern "C". (mpi/CMakeLists.txt defines OMPI_SKIP_MPICXX and
// MPICH_SKIP_MPICXX: without them, Open MPI's mpi.h brings in its deprecated C++ bindings,
// which need libmpi_cxx -- MPI::MPI_CXX -- at link time; that is MPI's business, not
// zarr_mpi.h's.)
#include "zarr_mpi.h"

int main() {
    zarr_status (*create)(MPI_Comm, zarr_comm **) = zarr_comm_create_mpi;
    zarr_status (*create_f)(MPI_Fint, zarr_comm **) = zarr_comm_create_mpi_f;
    return create == nullptr || create_f == nullptr || ZARR_OK != 0;
}
