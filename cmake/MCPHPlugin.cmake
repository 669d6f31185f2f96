# mcph_add_plugin() and mcph_add_plugin_objects(): how an mcph plugin is built, in this tree and
# out of it. The same file is installed with the SDK (<libdir>/cmake/mcph/MCPHPlugin.cmake) and
# included by mcphConfig.cmake, so a vendor's plugin is linked exactly like the bundled ones.
#
# Needs, before it is included:
#   - the target mcph::plugin_api (plugin_api.h, plugin_helper.hpp, bounded_json.hpp);
#   - MCPH_PLUGIN_MAP, the version script exporting only mcph_plugin_entry (plugin.map).
# Optional when a plugin is added: MCPH_PLUGIN_OUTPUT_DIR, where the module is written (in this
# tree: build/lib/mcph/plugins, the directory the build-tree CLI searches).
include_guard(GLOBAL)

if(NOT TARGET mcph::plugin_api)
  message(FATAL_ERROR "MCPHPlugin.cmake: the target mcph::plugin_api is missing (use find_package(mcph))")
endif()
if(NOT MCPH_PLUGIN_MAP OR NOT EXISTS "${MCPH_PLUGIN_MAP}")
  message(FATAL_ERROR "MCPHPlugin.cmake: MCPH_PLUGIN_MAP ('${MCPH_PLUGIN_MAP}') is not the plugin version script")
endif()
# Kept as a global property: a function reads its caller's variables, and a vendor may call
# find_package(mcph) in one directory and mcph_add_plugin() in another.
set_property(GLOBAL PROPERTY MCPH_PLUGIN_MAP "${MCPH_PLUGIN_MAP}")

# The compile settings every plugin object shares: position independent (it ends in a module)
# and hidden by default, so nothing but the entry point leaves the plugin.
function(_mcph_plugin_hidden target)
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# mcph_add_plugin(<target> <sources...>): a MODULE library (lib<target>.so) exporting only
# mcph_plugin_entry. -Wl,--no-undefined: a missing symbol fails the link here, not the load on a
# user's machine (the host loads with RTLD_NOW and would refuse the plugin with a reason).
function(mcph_add_plugin target)
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE mcph::plugin_api)
  _mcph_plugin_hidden(${target})
  set_target_properties(${target} PROPERTIES PREFIX "lib")
  if(MCPH_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${MCPH_PLUGIN_OUTPUT_DIR}")
  endif()
  get_property(map GLOBAL PROPERTY MCPH_PLUGIN_MAP)
  target_link_options(${target} PRIVATE "-Wl,--version-script=${map}" "-Wl,--no-undefined")
  # Relink when the version script changes.
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
endfunction()

# mcph_add_plugin_objects(<target> <sources...>): a plugin's sources (all but its entry point) as
# an OBJECT library, compiled once and linked into both the plugin and its unit tests, built
# exactly like the plugin.
function(mcph_add_plugin_objects target)
  add_library(${target} OBJECT ${ARGN})
  target_link_libraries(${target} PUBLIC mcph::plugin_api)
  _mcph_plugin_hidden(${target})
endfunction()
