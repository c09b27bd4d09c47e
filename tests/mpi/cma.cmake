# Cross-memory attach (docs/shm.md, "Single copy"), per MPI flavor. Included from CMakeLists.txt
# inside its per-flavor loop: flavor, mpiexec, ompi are set, and test_mpi_coll(_move)_<flavor>.
#  - denied from the start: the program runs under tests/mpi/deny_cma (a seccomp filter that
#    makes process_vm_readv/writev fail with EPERM, as a container's profile does): vred's probe
#    must say no, forced "cma" must be served by "pipe", every result right (coll_move --cma=no
#    also checks that the denial is real);
#  - off by VRED_CMA=off: the same, by the knob;
#  - denied on one rank in the middle of the job (cma_midway.c): right results, then "pipe".
# The MPIs' own single-copy paths would be refused by the filter too, so they are switched off
# for these runs: Open MPI's vader mechanism; for MPICH (ch4:ucx) UCX_TLS=self,sm, since UCX
# without its cma transport otherwise moves intra-node messages over TCP, where MPICH 4.0.2
# hangs in MPI_Finalize now and then (1 run in 3 of denied_np3; every rank in ucp progress).
# In the midway runs UCX's cma works at MPI_Init and "sm" would take it, so there UCX gets its
# copying transports alone (self,posix,sysv): the hierarchical reductions after the filter move
# each rank's block from its leader with the MPI's messages. MPICH 5.0 (ch4 shared memory) and
# Intel MPI read large messages by cross-memory attach themselves, and abort when it is refused
# ("process_vm_readv failed (errno 1)"): theirs is off too (MPIR_CVAR_CH4_CMA_ENABLE=0,
# I_MPI_SHM_CMA=0; other MPIs ignore the names).
if(NOT TARGET deny_cma)
  add_executable(deny_cma deny_cma.c)
endif()
set(cma_names "")
set(cma_mpiexec ${mpiexec})
if(ompi)
  list(APPEND cma_mpiexec --mca btl_vader_single_copy_mechanism none)
endif()
set(move $<TARGET_FILE:test_mpi_coll_move_${flavor}>)
add_test(NAME mpi_cma_${flavor}_denied_np2
  COMMAND ${cma_mpiexec} -np 2 $<TARGET_FILE:deny_cma> ${move} --expect-vred --cma=no)
# The reductions by cross-memory attach (cma_reduce.c), forced, denied from the start: served by
# vred's other algorithms, every result right (tests/mpi/coll.c finds out the denial itself).
add_test(NAME mpi_cma_${flavor}_denied_reductions_np3
  COMMAND ${cma_mpiexec} -np 3 $<TARGET_FILE:deny_cma> $<TARGET_FILE:test_mpi_coll_${flavor}>
          --expect-vred --alg=cma --cma=no)
list(APPEND cma_names mpi_cma_${flavor}_denied_reductions_np3)
add_test(NAME mpi_cma_${flavor}_denied_np3
  COMMAND ${cma_mpiexec} -np 3 $<TARGET_FILE:deny_cma> ${move} --expect-vred --cma=no --sample=3:1)
add_test(NAME mpi_cma_${flavor}_off_np2
  COMMAND ${mpiexec} -np 2 ${move} --expect-vred --sample=2:1)
set_tests_properties(mpi_cma_${flavor}_off_np2 PROPERTIES ENVIRONMENT "VRED_CMA=off")
list(APPEND cma_names mpi_cma_${flavor}_denied_np2 mpi_cma_${flavor}_denied_np3
  mpi_cma_${flavor}_off_np2)

set(t test_mpi_cma_midway_${flavor})
add_executable(${t} cma_midway.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
foreach(np 2 3)
  add_test(NAME mpi_cma_${flavor}_midway_np${np} COMMAND ${cma_mpiexec} -np ${np} $<TARGET_FILE:${t}>)
  list(APPEND cma_names mpi_cma_${flavor}_midway_np${np})
endforeach()
# Two nodes of two: the failed read is on the root's node; the other node keeps single copy.
add_test(NAME mpi_cma_${flavor}_midway_np4_node2 COMMAND ${cma_mpiexec} -np 4 $<TARGET_FILE:${t}>)
set_tests_properties(mpi_cma_${flavor}_midway_np4_node2 PROPERTIES ENVIRONMENT "VRED_NODE_SIZE=2")
list(APPEND cma_names mpi_cma_${flavor}_midway_np4_node2)
if(NOT ompi)
  foreach(t ${cma_names})
    if(NOT t MATCHES "_off_np")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "MPIR_CVAR_CH4_CMA_ENABLE=0;I_MPI_SHM_CMA=0")
    endif()
    if(t MATCHES "_midway_np")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "UCX_TLS=self,posix,sysv")
    elseif(NOT t MATCHES "_off_np")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "UCX_TLS=self,sm")
    endif()
  endforeach()
endif()
set_tests_properties(${cma_names} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS mpi_coll)
