# Bad input through vred's collectives ends as through the MPI alone (tests/mpi/bad_input.c) on
# 2 and 3 ranks; the cases an MPI crashes on (bad_input.sh) on 2, mismatched roots on 2 and 3.
# Included once per flavor from CMakeLists.txt (flavor, mpiexec, ompi).
set(t test_mpi_bad_input_${flavor})
add_executable(${t} bad_input.c bad_input_calls.c bad_input_cases.c bad_input_roots.c
  bad_input_counts.c)
target_link_libraries(${t} PRIVATE vred_mpi_${flavor} vred_mpi_deps_${flavor} ${CMAKE_DL_LIBS})
target_link_options(${t} PRIVATE "LINKER:--no-as-needed")
set(names "")
foreach(np 2 3)
  add_test(NAME mpi_bad_input_${flavor}_np${np} COMMAND ${mpiexec} -np ${np} $<TARGET_FILE:${t}>)
  list(APPEND names mpi_bad_input_${flavor}_np${np})
endforeach()
# The cases an MPI crashes on, one job each until it ends (Open MPI: without its one-second wait
# before killing the other ranks of a crashed job, which would dominate the run).
set(fast_kill "")
if(ompi)
  set(fast_kill --mca odls_base_sigkill_timeout 0)
endif()
add_test(NAME mpi_bad_input_${flavor}_isolated
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bad_input.sh ${mpiexec} ${fast_kill} -- $<TARGET_FILE:${t}>)
list(APPEND names mpi_bad_input_${flavor}_isolated)
set_tests_properties(${names} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS mpi_coll)

# Every VRED_* knob with malformed values (vred-info), then in an MPI job through this flavor's
# libvred-mpi (tests/mpi/config_knobs.sh).
get_property(info_checked GLOBAL PROPERTY vred_config_knobs_info)
set(mpi_only "")
if(info_checked)
  set(mpi_only --mpi-only)
endif()
set_property(GLOBAL PROPERTY vred_config_knobs_info 1)
add_test(NAME mpi_config_knobs_${flavor}
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/config_knobs.sh ${mpi_only} $<TARGET_FILE:vred-info>
          ${mpiexec} -- $<TARGET_FILE:${t}>)
set_tests_properties(mpi_config_knobs_${flavor} PROPERTIES TIMEOUT 120)

# VRED_DISABLE=1: no vred shared-memory segment is opened (strace), with a control without it.
add_test(NAME mpi_disable_untouched_${flavor}
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/disable_untouched.sh ${mpiexec} -- $<TARGET_FILE:${t}>)
set_tests_properties(mpi_disable_untouched_${flavor} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
