# tests/noble: @noble/curves (node >= 20.19, from the npm registry, pinned
# in tests/noble/package-lock.json) as an independent oracle for the
# BLS12-381 code and the Groth16 proofs. Test-only: nothing built or run by
# provisor needs node.
#
# NOBLE_DEPS, run by `make deps`: npm ci when tests/noble/node_modules is
# missing or older than the lockfile. Without npm it says so and succeeds
# (the tests that need noble skip, saying "run make deps").
NOBLE_DEPS = ( cd tests/noble && \
	if ! command -v npm >/dev/null 2>&1; then \
	  echo "deps: npm not found: the noble oracle tests will skip (they need node >= 20.19 and npm)"; \
	elif [ -d node_modules ] && ! [ package-lock.json -nt node_modules ]; then \
	  echo "deps: tests/noble/node_modules up to date"; \
	else \
	  echo "deps: npm ci in tests/noble"; \
	  npm ci --no-audit --no-fund && touch node_modules; \
	fi )

# verify_proof.mjs on toy params and proofs made by noble itself.
TESTS += tests/noble/selftest.sh

# curve_noble: G1, G2, MSM and the pairing against noble.
TESTS += $(BIN)/tests/curve_noble
$(BIN)/tests/curve_noble: $(call objs,tests/curve/noble.c tests/noble/client.c) $(O)/libcurve.a $(O)/libfield.a
