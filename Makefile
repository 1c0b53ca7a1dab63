# The two commands the README documents. Each installs what is missing first.
.PHONY: serve test package
serve:
	@scripts/serve.sh
test:
	@scripts/test.sh
# The npm package a documentation author installs: target/package/shardlab-<version>.tgz.
package:
	@scripts/package.sh
