# Warnings are errors everywhere.
add_compile_options(
  -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wvla -Wundef -Wcast-align -Wno-unused-parameter)
add_compile_definitions(_GNU_SOURCE)
