# MPI tests under ASan + UBSan (VRED_SANITIZE=ON; `make test-asan` runs the label "asan"), one
# flavor per inclusion (from tests/mpi/CMakeLists.txt, which sets flavor, mpiexec and ompi).
# A subset that keeps both flavors within a few minutes: the reduction collectives on 2 and 3
# ranks (sampled: every algorithm, shared memory and point-to-point, still comes up), bcast and
# allgather on 3 (single copy where the kernel allows it), the single-copy fallback after a
# denial mid-job on 3 (cma_midway.c), the error paths, MPI_Reduce_local's conformance under one vector ISA, the
# shared region's segment checks and a small soak, legal odd arguments, and datatypes with holes
# (MPI_Reduce_local up to a buffer's true extent). Each runs through
# asan_mpi.sh, which fails on any leak vred allocated and allows the MPI's own.
if(NOT VRED_SANITIZE)
  return()
endif()
if(NOT TARGET vred_asan_mpi)
  add_custom_target(vred_asan_mpi)
endif()
add_dependencies(vred_asan_mpi test_mpi_coll_${flavor} test_mpi_coll_move_${flavor}
  test_mpi_errors_${flavor} test_mpi_conformance_${flavor} test_mpi_shm_safety_${flavor}
  test_mpi_coll_edge_${flavor} test_mpi_cma_midway_${flavor} test_mpi_holes_${flavor})
set(asan_run ${PROJECT_SOURCE_DIR}/tests/sanitize/asan_mpi.sh ${PROJECT_SOURCE_DIR} --)
# MPICH 4.0 busy-polls: oversubscribed it is slower, so it samples more thinly.
if(ompi)
  set(asan_sample2 --sample=6:1)
  set(asan_sample3 --sample=24:5)
  set(asan_move3 --sample=2:0)
else()
  set(asan_sample2 --sample=12:1)
  set(asan_sample3 --sample=48:5)
  set(asan_move3 --sample=2:1)
endif()
set(asan_names asan_mpi_coll_${flavor}_np2 asan_mpi_coll_${flavor}_np3 asan_mpi_coll_move_${flavor}_np3
  asan_mpi_errors_${flavor} asan_mpi_conformance_${flavor}_avx2 asan_mpi_shm_${flavor}_segment_soak
  asan_mpi_coll_${flavor}_edge asan_mpi_cma_${flavor}_midway asan_mpi_coll_${flavor}_holes)
add_test(NAME asan_mpi_coll_${flavor}_np2
  COMMAND ${asan_run} ${mpiexec} -np 2 $<TARGET_FILE:test_mpi_coll_${flavor}> --expect-vred ${asan_sample2})
add_test(NAME asan_mpi_coll_${flavor}_np3
  COMMAND ${asan_run} ${mpiexec} -np 3 $<TARGET_FILE:test_mpi_coll_${flavor}> --expect-vred ${asan_sample3})
add_test(NAME asan_mpi_coll_move_${flavor}_np3
  COMMAND ${asan_run} ${mpiexec} -np 3 $<TARGET_FILE:test_mpi_coll_move_${flavor}> --expect-vred ${asan_move3})
# (cma_mpiexec: Open MPI's own single-copy transport off, as in tests/mpi/cma.cmake.)
add_test(NAME asan_mpi_cma_${flavor}_midway
  COMMAND ${asan_run} ${cma_mpiexec} -np 3 $<TARGET_FILE:test_mpi_cma_midway_${flavor}>)
add_test(NAME asan_mpi_errors_${flavor}
  COMMAND ${asan_run} ${mpiexec} -np 1 $<TARGET_FILE:test_mpi_errors_${flavor}>)
add_test(NAME asan_mpi_conformance_${flavor}_avx2
  COMMAND ${asan_run} ${mpiexec} -np 1 $<TARGET_FILE:test_mpi_conformance_${flavor}> --expect-vred --isa=avx2)
set_tests_properties(asan_mpi_conformance_${flavor}_avx2 PROPERTIES ENVIRONMENT "VRED_ISA=avx2")
add_test(NAME asan_mpi_shm_${flavor}_segment_soak
  COMMAND ${asan_run} ${mpiexec} -np 2 $<TARGET_FILE:test_mpi_shm_safety_${flavor}> --segment --soak 5000)
add_test(NAME asan_mpi_coll_${flavor}_edge
  COMMAND ${asan_run} ${mpiexec} -np 3 $<TARGET_FILE:test_mpi_coll_edge_${flavor}>)
add_test(NAME asan_mpi_coll_${flavor}_holes
  COMMAND ${asan_run} ${mpiexec} -np 2 $<TARGET_FILE:test_mpi_holes_${flavor}>)
set_tests_properties(${asan_names} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS asan)
