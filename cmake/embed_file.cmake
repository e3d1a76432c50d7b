# Writes a C file holding the bytes of INPUT as `const char SYMBOL[]` (NUL-terminated) and
# `const size_t SYMBOL_size`, for data the library carries inside itself (the datasheet table).
# Usage: cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -DHEADER=dir/header.h -P embed_file.cmake
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Sixteen bytes a line keeps the generated file readable in a debugger.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE ${OUTPUT}.tmp
  "/* Generated from ${INPUT} by cmake/embed_file.cmake. Do not edit. */\n"
  "#include <stddef.h>\n\n#include \"${HEADER}\"\n\n"
  "const char ${SYMBOL}[] = {\n    ${bytes}0x00};\n"
  "const size_t ${SYMBOL}_size = ${size};\n")
configure_file(${OUTPUT}.tmp ${OUTPUT} COPYONLY) # rewrites only when changed
file(REMOVE ${OUTPUT}.tmp)
