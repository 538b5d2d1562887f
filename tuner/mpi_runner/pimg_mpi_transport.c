/* The MPI side of pimg-tune's distributed runner: a plugin (dlopen'ed by tuner/src/distributed/mpi_transport.cpp)
 * so that the pimg-tune binary itself never links MPI. Whole messages of bytes on one tag of
 * MPI_COMM_WORLD; only the calling thread uses MPI (MPI_THREAD_FUNNELED). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define PIMG_TAG 7101

static char last_error[MPI_MAX_ERROR_STRING + 64];

static int fail(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  text[len] = '\0';
  snprintf(last_error, sizeof last_error, "%s: %s", what, len ? text : "MPI error");
  return -1;
}

const char* pimg_mpi_last_error(void) { return last_error; }

int pimg_mpi_init(int* rank, int* size) {
  /* Open MPI loads its components with dlopen and they resolve symbols of libmpi globally; make
   * sure libmpi is in the global scope even though this plugin may have been opened locally. */
  Dl_info info;
  if (dladdr((void*)&MPI_Init_thread, &info) && info.dli_fname)
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int provided = 0;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) return fail("MPI_Init_thread", rc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS) return fail("MPI_Comm_rank", rc);
  if ((rc = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS) return fail("MPI_Comm_size", rc);
  return 0;
}

int pimg_mpi_send(int to, const void* data, size_t bytes) {
  if (bytes > (size_t)0x7fffffff) {
    snprintf(last_error, sizeof last_error, "message of %zu bytes is too long", bytes);
    return -1;
  }
  int rc = MPI_Send(data, (int)bytes, MPI_BYTE, to, PIMG_TAG, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : fail("MPI_Send", rc);
}

/* 1 and the sender and length of the next message when one is waiting, 0 when none, -1 on error. */
int pimg_mpi_probe(int* from, size_t* bytes) {
  int flag = 0, count = 0;
  MPI_Status st;
  int rc = MPI_Iprobe(MPI_ANY_SOURCE, PIMG_TAG, MPI_COMM_WORLD, &flag, &st);
  if (rc != MPI_SUCCESS) return fail("MPI_Iprobe", rc);
  if (!flag) return 0;
  if ((rc = MPI_Get_count(&st, MPI_BYTE, &count)) != MPI_SUCCESS) return fail("MPI_Get_count", rc);
  *from = st.MPI_SOURCE;
  *bytes = (size_t)count;
  return 1;
}

int pimg_mpi_recv(int from, void* data, size_t bytes) {
  int rc = MPI_Recv(data, (int)bytes, MPI_BYTE, from, PIMG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS ? 0 : fail("MPI_Recv", rc);
}

int pimg_mpi_finalize(void) {
  int rc = MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : fail("MPI_Finalize", rc);
}
