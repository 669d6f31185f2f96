# Install rules and the package files consumers use (issue #13):
#   runtime component: the mcph CLI, libmcph.so.N, the product plugins, hello-server (the demo's
#                      server, in <prefix>/libexec/mcph)
#   dev component:     the libmcph.so namelink, public headers + generated version header, the plugin
#                      SDK (plugin_api.h, plugin_helper.hpp, bounded_json.hpp, plugin.map,
#                      MCPHPlugin.cmake), mcphConfig.cmake + version file + exported targets,
#                      mcph.pc and mcph-plugin.pc, the plugin template
# Included from the top level after every target exists. GNUInstallDirs is included there.
include(CMakePackageConfigHelpers)

set(MCPH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mcph")
set(MCPH_INSTALL_PLUGIN_DIR "${CMAKE_INSTALL_LIBDIR}/mcph/plugins")
set(MCPH_INSTALL_PLUGIN_MAP "${CMAKE_INSTALL_DATADIR}/mcph/plugin.map")

# ---- compatibility with a host/CMakeLists.txt from before the mcph_objects / mcph_internal split ----
# That layout gave mcph its include directory as a plain source path, which install(EXPORT)
# refuses, and the RapidJSON define as a global definition only. Once host/CMakeLists.txt declares
# both itself (mcph_internal exists), this block does nothing.
if(NOT TARGET mcph_internal)
  set_property(TARGET mcph PROPERTY INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/host/include>" "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_property(TARGET mcph APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS RAPIDJSON_HAS_STDSTRING=1)
endif()
if(NOT TARGET mcph::mcph)
  add_library(mcph::mcph ALIAS mcph)
endif()

# ---- the default plugin directory compiled into libmcph ------------------------------------------
# The one source that needs it gets the define (a changed prefix recompiles one file). The library
# also finds <its own directory>/mcph/plugins, so a relocated install works without it.
set(MCPH_INSTALLED_PLUGIN_DIR "${CMAKE_INSTALL_FULL_LIBDIR}/mcph/plugins")
set_property(SOURCE "${PROJECT_SOURCE_DIR}/host/src/plugins/plugin_loader.cpp" TARGET_DIRECTORY mcph
  APPEND PROPERTY COMPILE_DEFINITIONS "MCPH_INSTALLED_PLUGIN_DIR=\"${MCPH_INSTALLED_PLUGIN_DIR}\"")

# ---- runtime ---------------------------------------------------------------------------------------
install(TARGETS mcph EXPORT mcphTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mcph_plugin_api EXPORT mcphTargets)

# The CLI finds libmcph through a RUNPATH relative to itself: needed in any prefix but /usr
# (ld.so's own path), and harmless there. Only the CLI links libmcph; plugins and hello-server
# link system libraries only and get no RUNPATH.
#
# It is linked with that RUNPATH (plus $ORIGIN/../lib: the build tree's bin/ and lib/), the same in
# the build tree and installed, rather than with a build-tree one that the install edits in place:
# for that edit CMake pads the build tree's RUNPATH with ':' (always one trailing, more to fit a
# longer install path), and ld.so reads an empty entry as the current directory, so the build
# tree's mcph run inside a repository loaded the repository's libstdc++.so.6 or libicuuc.so.72
# (tests/security/trust_library_search_test.cpp). Relinking at install instead is not possible
# with Ninja.
if(TARGET mcph_cli)
  file(RELATIVE_PATH _mcph_bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(_mcph_cli_runpath "\$ORIGIN/${_mcph_bin_to_lib}")
  if(NOT _mcph_bin_to_lib STREQUAL "../lib")
    string(APPEND _mcph_cli_runpath ":\$ORIGIN/../lib")
  endif()
  set_target_properties(mcph_cli PROPERTIES BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${_mcph_cli_runpath}")
  install(TARGETS mcph_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
# The man page, mcph.1: written at build time by the binary itself (`mcph man`, generated from the
# same command and option tables as its help, host/cli/man_page.cpp), so it cannot drift from what
# the binary accepts; not when cross-compiling (the binary cannot run here).
if(TARGET mcph_cli AND NOT CMAKE_CROSSCOMPILING)
  set(_mcph_man_page "${PROJECT_BINARY_DIR}/share/man/man1/mcph.1")
  add_custom_command(OUTPUT "${_mcph_man_page}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/share/man/man1"
    COMMAND sh -c "\"$0\" man > \"$1\"" "$<TARGET_FILE:mcph_cli>" "${_mcph_man_page}"
    DEPENDS mcph_cli
    COMMENT "Generating mcph.1 (mcph man)"
    VERBATIM)
  add_custom_target(mcph_man ALL DEPENDS "${_mcph_man_page}")
  install(FILES "${_mcph_man_page}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
endif()
# `mcph demo` starts the hello-server found in <prefix>/libexec/mcph (host/cli/demo.cpp): a helper
# of the demo, not a command, so not in bin/ under a generic name.
if(TARGET hello-server)
  install(TARGETS hello-server RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/mcph COMPONENT runtime)
endif()

# The product plugins: every MODULE library defined under plugins/. Test plugins (tests/**) and
# helper libraries (plugins/*-common, OBJECT libraries) are never installed.
function(_mcph_product_plugins out)
  set(found "")
  get_property(subdirs DIRECTORY "${PROJECT_SOURCE_DIR}" PROPERTY SUBDIRECTORIES)
  foreach(dir IN LISTS subdirs)
    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${dir}")
    if(NOT rel MATCHES "^plugins/")
      continue()
    endif()
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(type STREQUAL "MODULE_LIBRARY")
        list(APPEND found ${t})
      endif()
    endforeach()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
_mcph_product_plugins(MCPH_PRODUCT_PLUGINS)
if(NOT MCPH_PRODUCT_PLUGINS)
  message(FATAL_ERROR "MCPHInstall: no plugin targets found under plugins/")
endif()
install(TARGETS ${MCPH_PRODUCT_PLUGINS} LIBRARY DESTINATION ${MCPH_INSTALL_PLUGIN_DIR} COMPONENT runtime)

# Debian policy: every package carries /usr/share/doc/<package>/copyright. From LICENSE, once the
# tree has one.
if(EXISTS "${PROJECT_SOURCE_DIR}/LICENSE")
  install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/mcph RENAME copyright
    COMPONENT runtime)
  install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/mcph-dev RENAME copyright
    COMPONENT dev)
endif()

# ---- dev: headers and the plugin SDK --------------------------------------------------------------
install(DIRECTORY "${PROJECT_SOURCE_DIR}/host/include/mcph" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT dev FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
# mcph/version.hpp, generated by host/CMakeLists.txt.
if(EXISTS "${PROJECT_BINARY_DIR}/generated/include/mcph")
  install(DIRECTORY "${PROJECT_BINARY_DIR}/generated/include/mcph" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT dev FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/plugin-api/include/mcph" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT dev FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES "${PROJECT_SOURCE_DIR}/plugin-api/plugin.map" DESTINATION ${CMAKE_INSTALL_DATADIR}/mcph COMPONENT dev)
install(FILES "${PROJECT_SOURCE_DIR}/cmake/MCPHPlugin.cmake" DESTINATION ${MCPH_INSTALL_CMAKEDIR} COMPONENT dev)
# The plugin template and the ABI reference, where a vendor with the -dev package looks for them.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/plugin-template" DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
  COMPONENT dev PATTERN "build*" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/docs/plugin-abi.md" DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT dev)

# ---- dev: CMake package --------------------------------------------------------------------------
install(EXPORT mcphTargets NAMESPACE mcph:: DESTINATION ${MCPH_INSTALL_CMAKEDIR} COMPONENT dev)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/mcphConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/mcphConfig.cmake"
  INSTALL_DESTINATION ${MCPH_INSTALL_CMAKEDIR}
  PATH_VARS MCPH_INSTALL_PLUGIN_MAP MCPH_INSTALL_PLUGIN_DIR)
# While the project is 0.x a minor release may break the API (the usual 0.x rule), so a consumer
# asking for 0.1 accepts 0.1.z only; from 1.0 on, any 1.y.z (SameMajorVersion).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_mcph_compat SameMinorVersion)
else()
  set(_mcph_compat SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/mcphConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_mcph_compat})
install(FILES "${PROJECT_BINARY_DIR}/cmake/mcphConfig.cmake" "${PROJECT_BINARY_DIR}/cmake/mcphConfigVersion.cmake"
  DESTINATION ${MCPH_INSTALL_CMAKEDIR} COMPONENT dev)

# ---- dev: pkg-config -----------------------------------------------------------------------------
set(MCPH_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH MCPH_PC_PREFIX_FROM_PCDIR "/prefix/${MCPH_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" MCPH_PC_PREFIX_FROM_PCDIR "${MCPH_PC_PREFIX_FROM_PCDIR}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/mcph.pc.in" "${PROJECT_BINARY_DIR}/pkgconfig/mcph.pc" @ONLY)
configure_file("${PROJECT_SOURCE_DIR}/cmake/mcph-plugin.pc.in" "${PROJECT_BINARY_DIR}/pkgconfig/mcph-plugin.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/mcph.pc" "${PROJECT_BINARY_DIR}/pkgconfig/mcph-plugin.pc"
  DESTINATION ${MCPH_INSTALL_PKGCONFIGDIR} COMPONENT dev)
