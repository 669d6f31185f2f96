# CPack: two Debian packages from the install components (cmake/MCPHInstall.cmake).
#   mcph      (component runtime): the CLI, libmcph.so.N, the plugins, hello-server (`mcph demo`)
#   mcph-dev  (component dev):     headers, libmcph.so namelink, CMake package, pkg-config files,
#                                  the plugin SDK and template; Depends: mcph (= version), rapidjson-dev
# Build them in a configured build tree:  cd build && cpack -G DEB   (tests/install/package_deb.sh
# checks them; packaging/check-in-chroot.sh installs them with apt in a Debian 12 chroot).
#
# The packages install to /usr. Configure release builds with -DCMAKE_INSTALL_PREFIX=/usr so the
# plugin directory compiled into libmcph is /usr/lib/<multiarch>/mcph/plugins too; with any
# other prefix the installed library still finds its plugins from its own location.
set(MCPH_PACKAGE_MAINTAINER "mcph maintainers <maintainers@mcph.invalid>"
  CACHE STRING "Maintainer field of the .deb packages (Name <email>)")

set(CPACK_PACKAGE_NAME mcph)
set(CPACK_PACKAGE_VENDOR "mcph")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${MCPH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MCP (Model Context Protocol) client host")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_COMPONENTS_GROUPING IGNORE)  # one package per component

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MCPH_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# dpkg-shlibdeps (dpkg-dev) turns every ELF file's NEEDED entries into the Debian library
# packages providing them (libcurl4, libssl3, libboost-filesystem1.74.0, ...), with versions.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A shlibs file for libmcph.so.N, so packages built against it get "mcph (>= version)".
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME mcph)
# ICU and libidn2 (host/src/dynload/) and libedit (host/cli/libedit.cpp) are opened on first use,
# so no ELF file names them and dpkg-shlibdeps cannot see them: named here (what shlibdeps finds
# is appended).
string(REGEX MATCH "^[0-9]+" _mcph_icu_major "${ICU_VERSION}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libicu${_mcph_icu_major}, libidn2-0, libedit2")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION net)
# The first line is the synopsis; CPack indents the rest as the extended description.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "MCP (Model Context Protocol) client host: CLI, library and plugins
mcph connects to MCP servers over stdio, Streamable HTTP, SSE and WebSocket
through dynamically loaded transport plugins, with OAuth and XAA auth plugins.
This package holds the mcph command line client, the libmcph shared library,
the bundled plugins and the example hello-server used by `mcph demo`.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME mcph-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "mcph (= ${PROJECT_VERSION}), rapidjson-dev")
# Headers and CMake files only: nothing for dpkg-shlibdeps to scan.
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEV_DESCRIPTION "MCP client host: development files and plugin SDK
Headers, CMake package (find_package(mcph): mcph::mcph, mcph::plugin_api,
mcph_add_plugin()) and pkg-config files (mcph, mcph-plugin) for embedding
libmcph in an application or building transport and auth plugins, with a
plugin template project.")

include(CPack)
