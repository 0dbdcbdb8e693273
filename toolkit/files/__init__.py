"""Files in and out: the one reader, instance and schedule files, recall files, outputs.

- :mod:`.reading`: the one reader of input files (regular files only, within the limits);
- :mod:`.io`: instance and schedule files through cattrs, every error with its JSON path;
- :mod:`.duplicate_keys`: keys a JSON object gives twice;
- :mod:`.recall_file`: a recall file (one mounted tape and the files to read from it);
- :mod:`.outputs`: files and directories written whole or not at all.
"""
