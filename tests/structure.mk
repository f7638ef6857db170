# tests/structure: the shape of the source tree itself: the folder include
# graph has no cycle and only cli/ includes supervisor/; no supervisor file
# is over 600 lines (one level deep,
# like badinput.mk, because the top Makefile includes */*.mk only).
TESTS += tests/structure/includes.sh tests/structure/sizes.sh
