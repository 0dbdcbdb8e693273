"""Files in and out: the one reader, instance and schedule files, recall files, outputs.

- :mod:`.reading`: the one reader of input files (regular files only, within the limits);
- :mod:`.structurer`: documents into model objects through cattrs, every error with its path;
- :mod:`.json_documents`: JSON read strictly, told apart by its ``format``, written whole;
- :mod:`.duplicate_keys`: keys a JSON object gives twice;
- :mod:`.instance_file`, :mod:`.schedule_file`: instance and schedule files, read and written;
- :mod:`.recall_file`: a recall file (one mounted tape and the files to read from it);
- :mod:`.outputs`: files and directories written whole or not at all.
"""
