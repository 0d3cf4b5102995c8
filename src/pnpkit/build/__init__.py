"""A build: the pipeline that runs the stages, its cache, its output folder, the preview page."""
