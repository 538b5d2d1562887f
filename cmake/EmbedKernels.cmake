# Embeds every file under kernels/ into the binary as a path -> text table, so kernel sources
# travel with pimg-tune and their hashes identify what was compiled; and the families' native code
# (variants/<family>/<backend>/native/*.cpp, *.h, *.hpp, keyed by its path under variants/), which a
# variant may name as its source (the MPI workers: their text is the variant's stored identity).
set(PIMG_KERNEL_DIR ${PROJECT_SOURCE_DIR}/kernels)
file(GLOB_RECURSE PIMG_KERNEL_FILES CONFIGURE_DEPENDS
     ${PIMG_KERNEL_DIR}/*.cl ${PIMG_KERNEL_DIR}/*.h ${PIMG_KERNEL_DIR}/*.cpp ${PIMG_KERNEL_DIR}/*.cu ${PIMG_KERNEL_DIR}/*.cuh)
set(PIMG_NATIVE_DIR ${PROJECT_SOURCE_DIR}/variants)
file(GLOB PIMG_NATIVE_FILES CONFIGURE_DEPENDS ${PIMG_NATIVE_DIR}/*/*/native/*.cpp ${PIMG_NATIVE_DIR}/*/*/native/*.h
     ${PIMG_NATIVE_DIR}/*/*/native/*.hpp)
set(PIMG_EMBEDDED_KERNELS ${PROJECT_BINARY_DIR}/generated/kernels_embedded.cpp)
add_custom_command(
  OUTPUT ${PIMG_EMBEDDED_KERNELS}
  COMMAND ${CMAKE_COMMAND} -DKERNEL_DIR=${PIMG_KERNEL_DIR} -DNATIVE_DIR=${PIMG_NATIVE_DIR}
          -DOUTPUT=${PIMG_EMBEDDED_KERNELS} -P ${PROJECT_SOURCE_DIR}/cmake/embed_kernels_script.cmake
  DEPENDS ${PIMG_KERNEL_FILES} ${PIMG_NATIVE_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_kernels_script.cmake
  COMMENT "Embedding kernel sources")
