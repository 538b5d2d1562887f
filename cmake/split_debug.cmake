# pimg_install_split_debug(FILE): at `cmake --install`, moves the debug information of the installed FILE
# (relative to the install prefix) into .debug/<name>.debug beside it and links the two (.gnu_debuglink), as
# Debian's dh_strip does: the installed program is small (issue 36: under 30 MB), and gdb, perf and a backtrace
# still find the symbols, which gdb looks for in the program's own .debug folder. Only where the build has debug
# information and objcopy was found; a sanitizer build installs nothing of it.
function(pimg_install_split_debug file)
  if(NOT CMAKE_OBJCOPY OR PIMG_SANITIZE OR NOT CMAKE_BUILD_TYPE MATCHES "^(RelWithDebInfo|Debug)$")
    return()
  endif()
  install(CODE "
    set(installed \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${file}\")
    get_filename_component(dir \"\${installed}\" DIRECTORY)
    get_filename_component(name \"\${installed}\" NAME)
    file(MAKE_DIRECTORY \"\${dir}/.debug\")
    execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --only-keep-debug \"\${installed}\" \"\${dir}/.debug/\${name}.debug\"
                    COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --strip-debug \"--add-gnu-debuglink=\${dir}/.debug/\${name}.debug\"
                    \"\${installed}\" COMMAND_ERROR_IS_FATAL ANY)
    message(STATUS \"Debug information of \${installed}: \${dir}/.debug/\${name}.debug\")
  ")
endfunction()
