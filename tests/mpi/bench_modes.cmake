# vred-bench coll in each measuring mode (issue 16; tests/mpi/bench_modes.sh): the default (calls
# back to back on malloc'd buffers), --sync barrier, --align 64, --offset 16, --offset 0/16, each
# --validate'd on 2 ranks, its mode named in every table header and CSV row; bad modes refused;
# vred-bench offsets' rows, each at the offset it names.
# Included from CMakeLists.txt inside its per-flavor loop: flavor, launch, mpiexec, ompi are set.
if(TARGET vred_bench_${flavor})
  add_test(NAME bench_modes_${flavor}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_modes.sh ${mpiexec} -- $<TARGET_FILE:vred_bench_${flavor}>)
  set_tests_properties(bench_modes_${flavor} PROPERTIES TIMEOUT 300 LABELS bench)
endif()
