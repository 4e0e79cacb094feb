"""The container image, built without a container engine (`make image`, as root; docs/image.md).

`debian.py` makes the base root filesystem from Debian bookworm's packages (mmdebstrap, extracted, never
configured by maintainer scripts: no shell runs them), `venv.py` installs the project and its dependencies
into a virtualenv with the image's own interpreter, `prune.py` leaves out dependency data never
loaded (botocore's models of unused AWS services), `oci.py` writes the reproducible OCI layout, and
`build.py` runs the steps. `extras.py` is shared with the Dockerfile.
"""
