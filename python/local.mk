# python: the sitecustomize encore-run puts on PYTHONPATH (mpi4py set-up).
encorepythondir = $(pkglibdir)/python
dist_encorepython_DATA = python/sitecustomize.py

# encore-run in a build tree finds it next to itself.
all-local: python-build-copy
python-build-copy:
	@$(MKDIR_P) python
	@test "$(srcdir)" = "." || cp -p $(srcdir)/python/sitecustomize.py python/
clean-local: python-build-clean
python-build-clean:
	@test "$(srcdir)" = "." || rm -f python/sitecustomize.py
.PHONY: python-build-copy python-build-clean
