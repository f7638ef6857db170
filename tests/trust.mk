# tests/trust: what the supervisor does with a state directory someone
# else prepared (docs/security.md, "Files on disk"). (Here, one level deep,
# because the top Makefile includes */*.mk only.)
TESTS += tests/trust/symlink.sh
