# The two commands the README documents. Each installs what is missing first.
.PHONY: serve test
serve:
	@scripts/serve.sh
test:
	@scripts/test.sh
