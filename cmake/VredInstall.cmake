# `cmake --install <build> [--prefix P]`: what vred puts where, and how other builds find it.
#
#   include/vred.h                           the MPI-free API
#   include/vred_mpi.h                       libvred-mpi.so's extension API (with a flavor)
#   lib/libvred.so.0.1 (.so.0, .so)          the MPI-free library
#   lib/vred/<flavor>/libvred-mpi.so         the PMPI library, one per MPI flavor (same name in
#                                            each: the name users preload or pass to -lvred-mpi)
#   lib/vred/<flavor>/vred-bench             the benchmark next to the library it measures
#   bin/vred-bench-<flavor>                  -> ../lib/vred/<flavor>/vred-bench (symlink)
#   bin/vred-info
#   lib/cmake/vred/vredConfig.cmake ...      find_package(vred): vred::vred, vred::mpi_<flavor>
#   lib/pkgconfig/vred.pc, vred-mpi-<flavor>.pc
#
# ("lib" is CMAKE_INSTALL_LIBDIR: lib64 on some distributions.)
# Everything is relative to the prefix (RPATHs use $ORIGIN, the .pc files ${pcfiledir}, the
# CMake files their own location), so `--prefix` at install time and DESTDIR both work and an
# installed tree can be moved.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(VRED_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/vred CACHE STRING
  "where vredConfig.cmake goes, relative to the prefix")
set(VRED_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig CACHE STRING
  "where vred.pc and vred-mpi-<flavor>.pc go, relative to the prefix")
foreach(d BINDIR LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    # The RPATHs and the .pc files are relative to the prefix; an absolute dir would break them.
    message(FATAL_ERROR "vred: CMAKE_INSTALL_${d} must be relative to the prefix")
  endif()
endforeach()

# "../lib" style paths between install directories, for $ORIGIN RPATHs and the .pc prefix.
function(_vred_relpath out from to)
  file(RELATIVE_PATH r "/p/${from}" "/p/${to}")
  string(REGEX REPLACE "/$" "" r "${r}")
  if(r STREQUAL "")
    set(r ".")
  endif()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

# RPATH policy: the build tree keeps CMake's build RPATHs (tests run uninstalled); installed
# files get $ORIGIN-relative paths to vred's own libraries, plus the directories of libraries
# they link from outside the linker's default paths: through INSTALL_RPATH_USE_LINK_PATH for
# libraries CMake knows by full path (a private hwloc), and, below, the -L directories of the
# MPI's wrapper flags (Open MPI's lib/openmpi/lib, an MPI under /opt or a pip prefix), so that
# libvred-mpi.so and vred-bench find their MPI without LD_LIBRARY_PATH.

# ---- the MPI-free library and header ------------------------------------------------------
set_target_properties(vred PROPERTIES EXPORT_NAME vred INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS vred EXPORT vredTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/vred.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# ---- tools --------------------------------------------------------------------------------
# vred-info holds vred_core statically: it needs no vred library, only hwloc if built with it.
set_target_properties(vred-info PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS vred-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# vred-kbench is a developer tool (kernel tails, sparse formats): not installed.

# ---- per MPI flavor: libvred-mpi.so, vred-bench -------------------------------------------
set(VRED_INSTALLED_FLAVORS "")
set(_vred_config_flavors "")
foreach(F ${VRED_MPI_FLAVORS})
  if(NOT TARGET vred_mpi_${F})
    continue()
  endif()
  set(fdir ${CMAKE_INSTALL_LIBDIR}/vred/${F})
  # The MPI this flavor was built against, as its wrapper described it (cmake/VredMPI.cmake).
  get_target_property(mpi_c vred_mpi_deps_${F} INTERFACE_COMPILE_OPTIONS)
  get_target_property(mpi_l vred_mpi_deps_${F} INTERFACE_LINK_LIBRARIES)
  if(NOT mpi_c)
    set(mpi_c "")
  endif()
  if(NOT mpi_l)
    set(mpi_l "")
  endif()
  set(mpi_rpath "")
  foreach(flag ${mpi_l})
    if(flag MATCHES "^-L(.+)$" AND NOT CMAKE_MATCH_1 IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      list(APPEND mpi_rpath ${CMAKE_MATCH_1})
    endif()
  endforeach()
  # vred::mpi_<F>. Its include directory (vred.h, for the vred_* API that libvred-mpi.so also
  # exports) is set only for consumers of the installed target: in the build tree the target's
  # sources already see include/ privately.
  set_property(TARGET vred_mpi_${F} PROPERTY EXPORT_NAME mpi_${F})
  set_property(TARGET vred_mpi_${F} APPEND PROPERTY
    INTERFACE_INCLUDE_DIRECTORIES $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(vred_mpi_${F} PROPERTIES
    INSTALL_RPATH "${mpi_rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS vred_mpi_${F} EXPORT vredTargets LIBRARY DESTINATION ${fdir})

  # vred-bench has the same file name for every flavor, and finds its libvred-mpi.so through
  # $ORIGIN: the binary lives next to that library, and bin/ gets a flavor-named symlink
  # (glibc resolves $ORIGIN of a symlinked executable to the real file's directory).
  if(TARGET vred_bench_${F})
    set_target_properties(vred_bench_${F} PROPERTIES
      INSTALL_RPATH "$ORIGIN;${mpi_rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS vred_bench_${F} RUNTIME DESTINATION ${fdir})
    _vred_relpath(rel ${CMAKE_INSTALL_BINDIR} ${fdir})
    install(CODE "
      set(_l \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/vred-bench-${F}\")
      message(STATUS \"Installing: \${_l} -> ${rel}/vred-bench\")
      get_filename_component(_d \"\${_l}\" DIRECTORY)
      file(MAKE_DIRECTORY \"\${_d}\")
      file(CREATE_LINK \"${rel}/vred-bench\" \"\${_l}\" SYMBOLIC)
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_l}\")")
  endif()

  # Consumers of vred::mpi_<F> and vred-mpi-<F>.pc get the MPI's flags AFTER libvred-mpi.so,
  # so that the link order (vred first, then the MPI) comes out right by default.
  string(APPEND _vred_config_flavors "_vred_add_mpi_flavor(${F}\n  \"${mpi_c}\"\n  \"${mpi_l}\")\n")

  # vred-mpi-<F>.pc
  set(VRED_PC_FLAVOR ${F})
  list(JOIN mpi_c " " VRED_PC_MPI_CFLAGS)
  list(JOIN mpi_l " " VRED_PC_MPI_LIBS)
  _vred_relpath(VRED_PC_RELPREFIX ${VRED_INSTALL_PKGCONFIGDIR} .)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/vred-mpi.pc.in
    ${PROJECT_BINARY_DIR}/pkgconfig/vred-mpi-${F}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/vred-mpi-${F}.pc
    DESTINATION ${VRED_INSTALL_PKGCONFIGDIR})
  list(APPEND VRED_INSTALLED_FLAVORS ${F})
endforeach()
# The extension API of libvred-mpi.so (vred_mpi_force, vred_mpi_last_alg, ...), next to vred.h,
# which it includes; it needs the MPI's mpi.h, so it comes with the PMPI library.
if(VRED_INSTALLED_FLAVORS)
  install(FILES ${PROJECT_SOURCE_DIR}/include/vred_mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# ---- CMake package ------------------------------------------------------------------------
install(EXPORT vredTargets NAMESPACE vred:: DESTINATION ${VRED_INSTALL_CMAKEDIR})
set(VRED_CONFIG_FLAVORS "${VRED_INSTALLED_FLAVORS}")
set(VRED_CONFIG_MPI_BLOCK "${_vred_config_flavors}")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vredConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/vredConfig.cmake
  INSTALL_DESTINATION ${VRED_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: a new minor version may change the API, so only the same major.minor is compatible.
# Not ARCH_INDEPENDENT: an aarch64 install must not satisfy an x86_64 consumer.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/vredConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/vredConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/vredConfigVersion.cmake DESTINATION ${VRED_INSTALL_CMAKEDIR})

# ---- pkg-config: vred.pc ------------------------------------------------------------------
_vred_relpath(VRED_PC_RELPREFIX ${VRED_INSTALL_PKGCONFIGDIR} .)
configure_file(${PROJECT_SOURCE_DIR}/cmake/vred.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/vred.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/vred.pc DESTINATION ${VRED_INSTALL_PKGCONFIGDIR})

# ---- documents ----------------------------------------------------------------------------
foreach(doc README.md LICENSE COPYING)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
    install(FILES ${PROJECT_SOURCE_DIR}/${doc} DESTINATION ${CMAKE_INSTALL_DOCDIR})
  endif()
endforeach()
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/docs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR} # docs/: README links
    FILES_MATCHING PATTERN "*.md" PATTERN "*.png") # the .md files show the plots in img/
endif()
