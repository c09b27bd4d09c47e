# vred next to another PMPI tool (issue 6; docs/reliability.md, "Coexistence with another PMPI
# tool"), per MPI flavor. Included from CMakeLists.txt inside its per-flavor loop: flavor,
# launch, mpiexec, ompi are set.
#
# count_tool.c is the tool: a shared library whose MPI_<X> count and call PMPI_<X>. coexist.c
# links the MPI only (vred and the tool come in by LD_PRELOAD) or vred too (linked mode), and
# checks results, who served each call, and the tool's counts for the order it is told.

set(tool vred_count_tool_${flavor})
add_library(${tool} SHARED count_tool.c)
target_link_libraries(${tool} PRIVATE vred_mpi_deps_${flavor})
set_target_properties(${tool} PROPERTIES OUTPUT_NAME count-tool
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${flavor})

set(t test_mpi_coexist_${flavor})
add_executable(${t} coexist.c)
target_link_libraries(${t} PRIVATE vred_mpi_deps_${flavor} ${CMAKE_DL_LIBS})
set(tl test_mpi_coexist_linked_${flavor})
add_executable(${tl} coexist.c)
target_link_libraries(${tl} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} ${CMAKE_DL_LIBS})
target_link_options(${tl} PRIVATE "LINKER:--no-as-needed")

set(vlib $<TARGET_FILE:vred_mpi_${flavor}>)
set(tlib $<TARGET_FILE:${tool}>)
set(names mpi_coexist_${flavor}_tool_first mpi_coexist_${flavor}_vred_first
  mpi_coexist_${flavor}_alone mpi_coexist_${flavor}_linked_tool_first)
# Each rank's environment through `env` (as the mpi_preload_* tests): the launcher's own
# forwarding differs (Open MPI -x, MPICH -genv) and would preload the tool into it as well.
add_test(NAME mpi_coexist_${flavor}_tool_first
  COMMAND ${mpiexec} -np 2 env LD_PRELOAD=${tlib}:${vlib} $<TARGET_FILE:${t}> --expect=tool-first)
add_test(NAME mpi_coexist_${flavor}_vred_first
  COMMAND ${mpiexec} -np 2 env LD_PRELOAD=${vlib}:${tlib} $<TARGET_FILE:${t}> --expect=vred-first)
add_test(NAME mpi_coexist_${flavor}_alone
  COMMAND ${mpiexec} -np 2 env LD_PRELOAD=${vlib} $<TARGET_FILE:${t}> --expect=alone)
# Linked mode (-lvred-mpi before -lmpi) with the tool preloaded: the tool comes first.
add_test(NAME mpi_coexist_${flavor}_linked_tool_first
  COMMAND ${mpiexec} -np 2 env LD_PRELOAD=${tlib} $<TARGET_FILE:${tl}> --expect=tool-first)

# vred's own calls must never reach its exported MPI_<X>/PMPI_<X> (src/next/next.h, src/mpi/pmpi_define.h): a direct
# call would leave a dynamic relocation against one of those names in libvred-mpi.so.
find_program(VRED_READELF NAMES readelf ${CMAKE_READELF})
if(VRED_READELF AND CMAKE_NM)
  add_test(NAME mpi_coexist_${flavor}_no_self_calls
    COMMAND sh -c "names=$(${CMAKE_NM} -D --defined-only \"$1\" | awk '$3 ~ /^P?MPI_/ {print $3}' | paste -sd'|')
test -n \"$names\" || { echo 'no MPI_/PMPI_ exports found'; exit 1; }
if ${VRED_READELF} -rW \"$1\" | grep -wE \"$names\"; then echo 'libvred-mpi.so calls its own exports'; exit 1; fi
echo \"ok: no relocation against $names\"" sh ${vlib})
  list(APPEND names mpi_coexist_${flavor}_no_self_calls)
endif()
set_tests_properties(${names} PROPERTIES TIMEOUT 120 LABELS mpi_coexist)
