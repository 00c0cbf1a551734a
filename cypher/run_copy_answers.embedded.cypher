COPY Answer FROM $rows
